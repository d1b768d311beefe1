import { join } from 'node:path';
import { startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';
import { ConfigError, readConfig } from './config';
import { startReceiver } from './receiver';

/** `npm run receiver`. Without DATABASE_URL, PostgreSQL runs embedded, its data under examples/receiver/.data. */
async function main(): Promise<void> {
  const config = readConfig();
  let database: RunningDatabase | undefined;
  if (!config.databaseUrl) {
    database = await startEmbeddedPostgres(join(__dirname, '..', '.data'));
    process.stdout.write(`embedded PostgreSQL started (data in examples/receiver/.data)\n`);
  }
  const receiver = await startReceiver({ ...config, databaseUrl: config.databaseUrl ?? database!.url }).catch(async (error: unknown) => {
    await database?.stop();
    throw error;
  });
  process.stdout.write(`reference receiver listening on ${receiver.url}: webhooks to POST ${receiver.url}/webhooks\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping\n`);
    receiver
      .stop()
      .then(() => database?.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`stop failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
