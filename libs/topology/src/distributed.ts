import { kafkaTopicsFor } from '@pay/bus';
import { REQUEST_TOPICS, type AppName } from '@pay/contracts';
import { KAFKA_REPLY_PARTITIONS } from '@pay/kernel';
import { ensureDatabase, startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';
import { AppProcess } from './app-process';
import { startKafkaMock } from '@pay/kafka-mock';

/** The serving apps first, the gateway (the only one the outside calls) last. */
const START_ORDER: AppName[] = ['ledger', 'webhooks', 'payments', 'cash', 'supplier-payments', 'collections', 'gateway'];

export interface DistributedTopology {
  /** The gateway's origin. */
  url: string;
  databaseUrl: string;
  kafkaBrokers: string;
  apps: Record<AppName, AppProcess>;
  /** The mock cluster's fault controls, when the topology started one. */
  kafka: { setBrokerDown(id: number): Promise<void>; setBrokerUp(id: number): Promise<void> } | undefined;
  stop(): Promise<void>;
}

export interface DistributedOptions {
  /** The environment every app gets (SANDBOX, ADMIN_API_KEY, PUBLIC_BASE_URL, …); PORT is the gateway's. */
  env: Record<string, string>;
  /** Embedded PostgreSQL's directory when env has no DATABASE_URL. */
  dataDir: string;
  /** Brokers of the local mock cluster started when env has no KAFKA_BROKERS. */
  mockBrokers?: number;
  /** Prefix and echo each app's output (the launcher does; tests keep it for failure messages). */
  echo?: boolean;
}

/**
 * Every app in its own process over Kafka, on one PostgreSQL: `npm run start:distributed`, and the
 * distributed end-to-end tests. Without KAFKA_BROKERS a local mock cluster (librdkafka's) is started
 * with the topics created ahead; without DATABASE_URL an embedded PostgreSQL.
 */
export async function startDistributedTopology(options: DistributedOptions): Promise<DistributedTopology> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    let databaseUrl = options.env['DATABASE_URL'];
    if (!databaseUrl) {
      const database: RunningDatabase = await startEmbeddedPostgres(options.dataDir);
      cleanups.push(() => database.stop());
      databaseUrl = database.url;
    }
    await ensureDatabase(databaseUrl);

    let kafkaBrokers = options.env['KAFKA_BROKERS'];
    let kafka: DistributedTopology['kafka'];
    if (!kafkaBrokers) {
      const mock = await startKafkaMock({ brokers: options.mockBrokers ?? 1, topics: kafkaTopicsFor(REQUEST_TOPICS, KAFKA_REPLY_PARTITIONS) });
      cleanups.push(() => mock.stop());
      kafkaBrokers = mock.bootstrapServers;
      kafka = mock;
    }

    const apps = {} as Record<AppName, AppProcess>;
    for (const name of START_ORDER) {
      const env: Record<string, string> = { ...options.env, DATABASE_URL: databaseUrl, KAFKA_BROKERS: kafkaBrokers };
      if (name !== 'gateway') delete env['PORT'];
      apps[name] = new AppProcess(name, `apps/${name}/src/main.ts`, env, options.echo ?? false);
    }
    cleanups.push(async () => {
      for (const name of [...START_ORDER].reverse()) await apps[name].kill('SIGTERM');
    });
    // The apps run their own migrations; started one after another so that each finds the others' topics served.
    for (const name of START_ORDER) await apps[name].start();
    return { url: apps.gateway.url, databaseUrl, kafkaBrokers, apps, kafka, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
