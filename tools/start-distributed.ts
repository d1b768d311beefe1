import { resolve } from 'node:path';
import { startDistributedTopology } from '@pay/topology';

/**
 * `npm run start:distributed`: the same contract as `npm start`, every app in its own process over
 * Kafka (a local mock cluster when KAFKA_BROKERS is unset), with the same environment variables.
 */
async function main(): Promise<void> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  env['PORT'] = env['PORT'] ?? '3000';
  const topology = await startDistributedTopology({ env, dataDir: resolve(env['DATA_DIR'] ?? './.data'), echo: true });
  process.stdout.write(`distributed topology ready: gateway on ${topology.url}, Kafka at ${topology.kafkaBrokers}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping every app\n`);
    topology.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start the distributed topology: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
