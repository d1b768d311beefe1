// The e2e harness starts the distributed topology instead of the all-in-one service.
process.env.E2E_TOPOLOGY = 'distributed';
