import { join } from 'node:path';
import { ensureDatabase } from '@pay/platform';
import { freePort, startDistributedTopology } from '@pay/topology';
import { fmt } from './report';
import { authorizeScenario, createPendingPayments, type AuthorizeResult } from './scenarios';
import { randomAdminKey } from './service';
import { setUp } from './setup';

export interface DistributedOptions {
  count: number;
  connections: number;
  pendingConcurrency: number;
  customers: number;
  /** Unrecorded authorizations before the measured ones: JIT and caches of seven processes. */
  warmUp: number;
}

export interface DistributedResult {
  authorize: AuthorizeResult;
  /** Seconds from the first app's spawn to the gateway's /ready. */
  startS: number;
  count: number;
}

/**
 * The authorize scenario against `npm run start:distributed`: the seven apps, each its own process,
 * over the mock Kafka cluster (librdkafka's, as the launcher starts it without KAFKA_BROKERS), on one
 * database of the bench's PostgreSQL; started with startDistributedTopology, as the launcher and the
 * distributed tests start it. Same fixture and same load as the all-in-one authorize phase.
 */
export async function distributedPhase(
  databaseUrl: string,
  root: string,
  options: DistributedOptions,
  cleanups: (() => Promise<unknown>)[],
  log: (line: string) => void,
): Promise<DistributedResult> {
  await ensureDatabase(databaseUrl);
  const adminKey = randomAdminKey();
  const env: Record<string, string> = {
    PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    SANDBOX: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    ADMIN_API_KEY: adminKey,
    DATA_DIR: join(root, 'distributed'),
  };
  // No KAFKA_BROKERS in env: the topology starts the mock cluster, the default of start:distributed.
  const started = performance.now();
  const topology = await startDistributedTopology({ env, dataDir: join(root, 'distributed') });
  cleanups.push(() => topology.stop());
  const startS = (performance.now() - started) / 1000;
  log(`distributed: seven apps ready in ${fmt(startS)} s, gateway ${topology.url}, Kafka ${topology.kafkaBrokers}`);
  try {
    const fixture = await setUp(topology.url, adminKey, options.customers, Math.ceil((options.count + options.warmUp) / options.customers));
    log(`distributed: set up; creating ${options.warmUp} + ${options.count} pending payments (untimed)`);
    const warmUp = await createPendingPayments(fixture, options.warmUp, options.pendingConcurrency);
    const paymentIds = await createPendingPayments(fixture, options.count, options.pendingConcurrency);
    await authorizeScenario(fixture, warmUp, options.connections, async () => undefined);
    log(`distributed: warmed up; authorizing ${paymentIds.length} at full speed over ${options.connections} connections`);
    const authorize = await authorizeScenario(fixture, paymentIds, options.connections, async () => undefined);
    log(
      `distributed: ${authorize.load.ok} 2xx in ${fmt(authorize.load.durationS)} s, p50 ${fmt(authorize.load.p50Ms, 2)} ms, p99 ${fmt(authorize.load.p99Ms, 2)} ms; ` +
        `statuses ${JSON.stringify(authorize.statuses)}`,
    );
    return { authorize, startS, count: paymentIds.length };
  } catch (error) {
    const tails = Object.values(topology.apps).map((app) => `--- ${app.name} ---\n${app.output().slice(-2_000)}`);
    throw new Error(`${(error as Error).message}\n${tails.join('\n')}`);
  } finally {
    await topology.stop();
  }
}
