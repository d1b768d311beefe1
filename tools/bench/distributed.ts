import { join } from 'node:path';
import { ensureDatabase } from '@pay/platform';
import type { AppName } from '@pay/contracts';
import { parseInstances, startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { cpuDelta, cpuSnapshot, describeCpu, distributedGroups } from './cpu';
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
  /** Instances per app, as start:distributed's --instances takes them (`payments=2,ledger=2`); default one each. */
  instances?: string;
}

/** The request topics whose handling the phase reports per instance: the authorization's two hops. */
export const SHARED_TOPICS = { payments: 'payments.authorize', ledger: 'ledger.transfer' } as const satisfies Partial<Record<AppName, string>>;

export interface DistributedResult {
  authorize: AuthorizeResult;
  /** Seconds from the first app's spawn to the gateway's /ready. */
  startS: number;
  count: number;
  instances: string;
  /**
   * Each instance's share of the messages of SHARED_TOPICS it handled in the measured run, by app then
   * instance name (`payments-0`), from each instance's bus_messages_handled_total.
   */
  shares: Record<string, Record<string, number>>;
}

/**
 * The authorize scenario against `npm run start:distributed`: the seven apps, each its own process,
 * over the local Kafka the launcher starts without KAFKA_BROKERS (Apache Kafka; the mock cluster where
 * Java or Maven is missing; the log line names which), on one
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
    DATABASE_URL: databaseUrl,
    SANDBOX: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    ADMIN_API_KEY: adminKey,
    DATA_DIR: join(root, 'distributed'),
  };
  // No KAFKA_BROKERS in env: the topology starts its local Kafka, the default of start:distributed.
  const started = performance.now();
  const instances = options.instances ?? '1';
  const topology = await startDistributedTopology({ env, dataDir: join(root, 'distributed'), instances: parseInstances(instances) });
  cleanups.push(() => topology.stop());
  const startS = (performance.now() - started) / 1000;
  log(`distributed (instances ${instances}): apps ready in ${fmt(startS)} s, gateway ${topology.url}, Kafka ${topology.kafkaBrokers} (${topology.kafka?.kind === 'mock' ? "librdkafka's mock cluster" : 'Apache Kafka'})`);
  try {
    const fixture = await setUp(topology.url, adminKey, options.customers, Math.ceil((options.count + options.warmUp) / options.customers));
    log(`distributed: set up; creating ${options.warmUp} + ${options.count} pending payments (untimed)`);
    const warmUp = await createPendingPayments(fixture, options.warmUp, options.pendingConcurrency);
    const paymentIds = await createPendingPayments(fixture, options.count, options.pendingConcurrency);
    await authorizeScenario(fixture, warmUp, options.connections, async () => undefined);
    log(`distributed: warmed up; authorizing ${paymentIds.length} at full speed over ${options.connections} connections`);
    const metricsBefore = await scrapeMetrics(topology);
    const cpuBefore = cpuSnapshot(distributedGroups);
    const authorize = await authorizeScenario(fixture, paymentIds, options.connections, async () => cpuSnapshot(distributedGroups));
    const metricsAfter = await scrapeMetrics(topology);
    const shares = sharesOf(handledByInstance(metricsBefore), handledByInstance(metricsAfter));
    log(
      `distributed: ${authorize.load.ok} 2xx in ${fmt(authorize.load.durationS)} s, p50 ${fmt(authorize.load.p50Ms, 2)} ms, p99 ${fmt(authorize.load.p99Ms, 2)} ms; ` +
        `statuses ${JSON.stringify(authorize.statuses)}`,
    );
    log(`  distributed, ${describeCpu(cpuDelta(cpuBefore, authorize.statsAfterLoad), authorize.load.completed, 'authorization')}`);
    log(`  distributed, bus requests from send to reply, mean (count): ${describeBusRequests(busRequestTotals(metricsBefore), busRequestTotals(metricsAfter))}`);
    return { authorize, startS, count: paymentIds.length, instances, shares };
  } catch (error) {
    const tails = Object.values(topology.apps).map((app) => `--- ${app.name} ---\n${app.output().slice(-2_000)}`);
    throw new Error(`${(error as Error).message}\n${tails.join('\n')}`);
  } finally {
    await topology.stop();
  }
}

type Handled = Record<string, Record<string, number>>;

/** Every instance's /metrics text, by app then instance name: one scrape serves every reading below. */
type Scrape = Record<string, Record<string, string>>;

async function scrapeMetrics(topology: DistributedTopology): Promise<Scrape> {
  const scrape: Scrape = {};
  for (const [app, instances] of Object.entries(topology.instances)) {
    scrape[app] = {};
    for (const instance of instances) scrape[app]![instance.name] = await (await fetch(`${instance.url}/metrics`)).text();
  }
  return scrape;
}

/** bus_messages_handled_total of SHARED_TOPICS, by app and instance. */
function handledByInstance(scrape: Scrape): Handled {
  const handled: Handled = {};
  for (const [app, topic] of Object.entries(SHARED_TOPICS)) {
    handled[app] = {};
    for (const [instance, text] of Object.entries(scrape[app] ?? {})) {
      let sum = 0;
      for (const line of text.split('\n')) {
        if (line.startsWith('bus_messages_handled_total{') && line.includes(`topic="${topic}"`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      handled[app]![instance] = sum;
    }
  }
  return handled;
}

/** bus_request_duration_seconds' sum and count, by caller app and request topic, over every instance. */
export type RequestTotals = Map<string, { seconds: number; count: number }>;

function busRequestTotals(scrape: Scrape): RequestTotals {
  const totals: RequestTotals = new Map();
  for (const [app, instances] of Object.entries(scrape)) for (const text of Object.values(instances)) addBusRequestTotals(totals, app, text);
  return totals;
}

/** Adds one instance's bus_request_duration_seconds (its /metrics text) to `totals`, under `<app> → <topic>`. */
export function addBusRequestTotals(totals: RequestTotals, app: string, metrics: string): void {
  for (const line of metrics.split('\n')) {
    const match = /^bus_request_duration_seconds_(sum|count)\{topic="([^"]+)"\} (\S+)$/.exec(line);
    if (!match) continue;
    const key = `${app} → ${match[2]}`;
    const total = totals.get(key) ?? { seconds: 0, count: 0 };
    if (match[1] === 'sum') total.seconds += Number(match[3]);
    else total.count += Number(match[3]);
    totals.set(key, total);
  }
}

/** The requests made between two readings, slowest first: where an authorization's time over Kafka goes. */
export function describeBusRequests(before: RequestTotals, after: RequestTotals): string {
  const made = [...after].flatMap(([key, { seconds, count }]) => {
    const n = count - (before.get(key)?.count ?? 0);
    return n > 0 ? [{ key, n, meanMs: ((seconds - (before.get(key)?.seconds ?? 0)) / n) * 1000 }] : [];
  });
  made.sort((a, b) => b.meanMs - a.meanMs);
  return made.map(({ key, n, meanMs }) => `${key} ${fmt(meanMs, 1)} ms (${n})`).join(', ') || 'none';
}

/** Each instance's part of what its app handled between the two scrapes (0..1). */
function sharesOf(before: Handled, after: Handled): Handled {
  const shares: Handled = {};
  for (const [app, counts] of Object.entries(after)) {
    const moved = Object.entries(counts).map(([name, count]) => [name, count - (before[app]?.[name] ?? 0)] as const);
    const total = moved.reduce((sum, [, n]) => sum + n, 0);
    shares[app] = Object.fromEntries(moved.map(([name, n]) => [name, total === 0 ? 0 : n / total]));
  }
  return shares;
}
