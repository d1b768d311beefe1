import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseInstances, startDistributedTopology, type InstanceCounts } from '@pay/topology';

const USAGE = `usage: npm run start:distributed [-- [--instances N | --instances app=N[,app=N…]] [--database-per-service]]

  --instances N                 N instances of every app (1 to 4: one reply partition each)
  --instances payments=2,…      those apps' counts, the others 1; the first gateway listens on PORT,
                                the others on ports the system picks (printed once ready)
  --database-per-service        a database and a role per app on the one PostgreSQL (<APP>_DATABASE_URL)
`;

/**
 * `npm run start:distributed`: the same contract as `npm start`, every app in its own process over
 * Kafka, with the same environment variables. Without KAFKA_BROKERS it starts Apache Kafka locally
 * (tools/kafka: Java 17+ and Maven), or librdkafka's mock cluster where those are missing.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { instances: { type: 'string' }, 'database-per-service': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const instances: InstanceCounts | undefined = values.instances === undefined ? undefined : parseInstances(values.instances);
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  env['PORT'] = env['PORT'] ?? '3000';
  // The launcher's embedded PostgreSQL and the gateway's admin key live in one DATA_DIR.
  env['DATA_DIR'] = resolve(env['DATA_DIR'] || './.data');
  const topology = await startDistributedTopology({
    env,
    dataDir: env['DATA_DIR'],
    echo: true,
    ...(instances ? { instances } : {}),
    ...(values['database-per-service'] ? { databasePerService: true } : {}),
  });
  const counts = Object.entries(topology.instances).map(([app, list]) => `${app}×${list.length}`).join(' ');
  const kafka = topology.kafka === undefined ? 'KAFKA_BROKERS' : topology.kafka.kind === 'kafka' ? 'Apache Kafka, local' : "librdkafka's mock cluster, local";
  process.stdout.write(`distributed topology ready: gateway on ${topology.gatewayUrls.join(', ')}, Kafka at ${topology.kafkaBrokers} (${kafka}), ${counts}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping every app\n`);
    topology.stop().then(() => process.exit(0), () => process.exit(1));
  };
  // The apps, the broker and the database run in process groups of their own: a Ctrl-C (or a closed
  // terminal) reaches this process alone, which stops the apps first, then the broker and the database.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`failed to start the distributed topology: ${message}\n${error instanceof TypeError || error instanceof RangeError ? USAGE : ''}`);
  process.exit(error instanceof TypeError || error instanceof RangeError ? 2 : 1);
});
