// The e2e harness starts the distributed topology instead of the all-in-one service.
process.env.E2E_TOPOLOGY = 'distributed';
// The shape of that topology (read by libs/topology's startDistributedTopology, whoever calls it):
//   E2E_INSTANCES=2 (or payments=2,ledger=2)      -> TOPOLOGY_INSTANCES: instances per app
//   E2E_DATABASE_PER_SERVICE=true                 -> TOPOLOGY_DATABASE_PER_SERVICE: a database per app
// e.g. E2E_INSTANCES=2 E2E_DATABASE_PER_SERVICE=true npm run test:distributed
if (process.env.E2E_INSTANCES) process.env.TOPOLOGY_INSTANCES = process.env.E2E_INSTANCES;
if (process.env.E2E_DATABASE_PER_SERVICE) process.env.TOPOLOGY_DATABASE_PER_SERVICE = process.env.E2E_DATABASE_PER_SERVICE;
