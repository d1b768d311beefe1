import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { startEmbeddedPostgres } from '@pay/platform';
import { AppProcess, startDistributedTopology } from '@pay/topology';

/** What a chaos run starts, and the faults it can inject into it. */
export interface Target {
  name: 'all-in-one' | 'distributed';
  url: () => string;
  adminKey: string;
  /** The processes a fault may kill with SIGKILL (each restarts on the same port). */
  processes: AppProcess[];
  /** Brokers a fault may stop for a while, where there is Kafka (on Apache Kafka: SIGKILL, then a restart). */
  brokers: number;
  brokerOutage(broker: number, ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Brokers of the distributed topology's local cluster: one can go down while the others serve (on
 * Apache Kafka, replication 3 and min.insync.replicas 2, so a write survives one node killed).
 */
const BROKERS = 3;

/** No PORT: each process picks its own and says which (see AppProcess), keeping it across restarts. */
const baseEnv = (adminKey: string): Record<string, string> => ({
  SANDBOX: 'true',
  RATE_LIMIT_PER_SECOND: '0',
  PUBLIC_BASE_URL: 'https://pay.chaos.test',
  ADMIN_API_KEY: adminKey,
});

/**
 * `npm start` as one process over a PostgreSQL this run owns, so that killing the service kills the
 * service only (the database lives on, as a managed one would).
 */
export async function allInOne(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pay-chaos-'));
  const database = await startEmbeddedPostgres(dataDir);
  const adminKey = `admin_${randomBase62(32)}`;
  const service = new AppProcess('all-in-one', 'apps/all-in-one/src/main.ts', { ...baseEnv(adminKey), DATABASE_URL: database.url, DATA_DIR: join(dataDir, 'service') }, false);
  await service.start();
  return {
    name: 'all-in-one',
    url: () => service.url,
    adminKey,
    processes: [service],
    brokers: 0,
    brokerOutage: () => Promise.reject(new Error('no Kafka in the all-in-one topology')),
    stop: async () => {
      await service.kill('SIGTERM');
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every app in its own process over Kafka: three local nodes (Apache Kafka; the mock cluster without Java). */
export async function distributed(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pay-chaos-'));
  const adminKey = `admin_${randomBase62(32)}`;
  const topology = await startDistributedTopology({ env: baseEnv(adminKey), dataDir, localBrokers: BROKERS });
  const kafka = topology.kafka!;
  return {
    name: 'distributed',
    url: () => topology.url,
    adminKey,
    processes: Object.values(topology.apps),
    brokers: BROKERS,
    brokerOutage: async (broker, ms) => {
      await kafka.setBrokerDown(broker);
      await new Promise((resolve) => setTimeout(resolve, ms));
      await kafka.setBrokerUp(broker);
    },
    stop: async () => {
      await topology.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
