import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { ensureDatabase } from '@pay/platform';
import type { AppName, RequestTopic } from '@pay/contracts';
import { parseInstances, startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { cpuDelta, cpuSnapshot, describeCpu, distributedGroups } from './cpu';
import { describeDelta, pgStats } from './pg-stats';
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
  /** A database per app (`<base>_<app>`, as docker-compose.yml and deploy/k8s deploy them), else one for all. */
  databasePerService: boolean;
  /** Instances per app, as start:distributed's --instances takes them (`payments=2,ledger=2`); default one each. */
  instances?: string;
}

/** The request topics whose handling the phase reports per instance: the authorization's two hops (a transfer alone, or in a caller's batch). */
export const SHARED_TOPICS = { payments: ['payments.authorize', 'payments.authorize-batch'], ledger: ['ledger.transfer', 'ledger.transfer-batch'] } as const satisfies Partial<Record<AppName, readonly RequestTopic[]>>;
/**
 * How each app's instances share those requests: payments' authorizations spread over every instance;
 * the ledger's transfers of one currency (the fixture's, DZD) all go to one partition and so to one
 * instance (LEDGER_PARTITION_FIELDS in libs/contracts), the other instance's share of them none.
 */
export const SHARING = { payments: 'every instance', ledger: 'one instance a currency' } as const satisfies Record<keyof typeof SHARED_TOPICS, string>;

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
  /** Over the measured load, per authorization: bus requests made (each answered by a reply), Kafka messages by kind. */
  perAuthorization: { roundTrips: number } & KafkaMessages;
  /** CPU ms per authorization of the topology's processes: the apps, the broker(s), PostgreSQL (not the bench). */
  cpuMsPerAuthorization: number;
  /** The machine's idle share during the load (0..1). */
  idle: number;
}

/** Messages appended per authorization: requests, replies, and the consumer groups' offset commits (__consumer_offsets). */
export interface KafkaMessages {
  requests: number;
  replies: number;
  offsetCommits: number;
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
  const topology = await startDistributedTopology({ env, dataDir: join(root, 'distributed'), instances: parseInstances(instances), databasePerService: options.databasePerService });
  cleanups.push(() => topology.stop());
  const startS = (performance.now() - started) / 1000;
  log(
    `distributed (instances ${instances}): apps ready in ${fmt(startS)} s, gateway ${topology.url}, Kafka ${topology.kafkaBrokers} (${topology.kafka?.kind === 'mock' ? "librdkafka's mock cluster" : 'Apache Kafka'}), ` +
      (options.databasePerService ? 'a database per app' : 'one database for every app'),
  );
  const databases = await statisticsDatabases(databaseUrl, topology.databaseUrls);
  try {
    const fixture = await setUp(topology.url, adminKey, options.customers, Math.ceil((options.count + options.warmUp) / options.customers));
    log(`distributed: set up; creating ${options.warmUp} + ${options.count} pending payments (untimed)`);
    const warmUp = await createPendingPayments(fixture, options.warmUp, options.pendingConcurrency);
    const paymentIds = await createPendingPayments(fixture, options.count, options.pendingConcurrency);
    await authorizeScenario(fixture, warmUp, options.connections, async () => undefined);
    // As a service that has been running for a while: statistics of tables grown past a few rows. The
    // topology starts on empty databases, and autovacuum's first analyze, taken on a few dozen rows,
    // leaves plans that scan whole tables (a foreign-key check of every ledger entry read every
    // operation) for as long as the run lasts, or not, depending on when it came. After ANALYZE the plans
    // are made again, on statistics of the tables as they are now.
    await runInEach(databases, 'ANALYZE');
    log(`distributed: warmed up (${warmUp.length} authorizations, then ANALYZE); authorizing ${paymentIds.length} at full speed over ${options.connections} connections`);
    const kafka = new Kafka({ clientId: 'bench', brokers: topology.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    const metricsBefore = await scrapeMetrics(topology);
    const offsetsBefore = await topicOffsets(admin);
    const pgBefore = await pgStatsOf(databases);
    const cpuBefore = cpuSnapshot(distributedGroups);
    // Read right after the load (the GETs that check the outcome are requests too).
    const authorize = await authorizeScenario(fixture, paymentIds, options.connections, async () => ({
      cpu: cpuSnapshot(distributedGroups),
      metrics: await scrapeMetrics(topology),
      offsets: await topicOffsets(admin),
      // Last: it waits a second for the backends' counters.
      pg: await pgStatsOf(databases),
    }));
    const metricsAfter = authorize.statsAfterLoad.metrics;
    const shares = sharesOf(handledByInstance(metricsBefore), handledByInstance(metricsAfter));
    const before = busRequestTotals(metricsBefore);
    const after = busRequestTotals(metricsAfter);
    const perAuthorization = {
      roundTrips: roundTrips(before, after) / authorize.load.completed,
      ...kafkaMessages(offsetsBefore, authorize.statsAfterLoad.offsets, authorize.load.completed),
    };
    const cpu = cpuDelta(cpuBefore, authorize.statsAfterLoad.cpu);
    log(
      `distributed: ${authorize.load.ok} 2xx in ${fmt(authorize.load.durationS)} s, p50 ${fmt(authorize.load.p50Ms, 2)} ms, p99 ${fmt(authorize.load.p99Ms, 2)} ms; ` +
        `statuses ${JSON.stringify(authorize.statuses)}`,
    );
    log(`  distributed, ${describeCpu(cpu, authorize.load.completed, 'authorization')}`);
    for (const [i, { apps }] of databases.entries()) {
      for (const line of describeDelta(pgBefore[i]!, authorize.statsAfterLoad.pg[i]!, authorize.load.completed)) log(`  distributed, PostgreSQL (${apps.join(', ')}): ${line}`);
    }
    log(`  distributed, bus requests from send to reply, mean (count): ${describeBusRequests(before, after)}`);
    log(
      `  distributed, per authorization: ${fmt(perAuthorization.roundTrips, 2)} bus round trips; Kafka messages ${fmt(perAuthorization.requests, 2)} on request topics, ` +
        `${fmt(perAuthorization.replies, 2)} on reply topics, ${fmt(perAuthorization.offsetCommits, 2)} offset commits (${describeTopics(offsetsBefore, authorize.statsAfterLoad.offsets, authorize.load.completed)})`,
    );
    const cpuMsPerAuthorization = [...cpu.runMs].filter(([group]) => group !== 'bench' && group !== 'other').reduce((sum, [, ms]) => sum + ms, 0) / authorize.load.completed;
    return { authorize, startS, count: paymentIds.length, instances, shares, perAuthorization, cpuMsPerAuthorization, idle: cpu.idle };
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
  for (const [app, topics] of Object.entries(SHARED_TOPICS)) {
    handled[app] = {};
    for (const [instance, text] of Object.entries(scrape[app] ?? {})) {
      let sum = 0;
      for (const line of text.split('\n')) {
        if (line.startsWith('bus_messages_handled_total{') && topics.some((topic) => line.includes(`topic="${topic}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
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

/** Each topic's end offsets summed over its partitions: how many messages were ever appended to it. */
export type TopicOffsets = Map<string, number>;

async function topicOffsets(admin: Admin): Promise<TopicOffsets> {
  const offsets: TopicOffsets = new Map();
  for (const topic of await admin.listTopics()) {
    const partitions = await admin.fetchTopicOffsets(topic);
    offsets.set(topic, partitions.reduce((sum, { high }) => sum + Number(high), 0));
  }
  return offsets;
}

const appended = (before: TopicOffsets, after: TopicOffsets, topic: string): number => (after.get(topic) ?? 0) - (before.get(topic) ?? 0);

/** The messages appended between two readings, per authorization, by kind (topic names: requestTopicOf, replyTopicOf). */
export function kafkaMessages(before: TopicOffsets, after: TopicOffsets, authorizations: number): KafkaMessages {
  const counts = { requests: 0, replies: 0, offsetCommits: 0 };
  for (const topic of after.keys()) {
    const n = appended(before, after, topic);
    if (topic.endsWith('.requests')) counts.requests += n;
    else if (topic.endsWith('.replies')) counts.replies += n;
    else if (topic === '__consumer_offsets') counts.offsetCommits += n;
  }
  return { requests: counts.requests / authorizations, replies: counts.replies / authorizations, offsetCommits: counts.offsetCommits / authorizations };
}

/** Every topic that grew, with its messages per authorization, most first. */
function describeTopics(before: TopicOffsets, after: TopicOffsets, authorizations: number): string {
  const grown = [...after.keys()].map((topic) => [topic, appended(before, after, topic) / authorizations] as const).filter(([, n]) => n > 0);
  grown.sort((a, b) => b[1] - a[1]);
  return grown.map(([topic, n]) => `${topic} ${fmt(n, 2)}`).join(', ') || 'none';
}

/** Bus requests made between two readings, every caller and topic. */
export function roundTrips(before: RequestTotals, after: RequestTotals): number {
  let made = 0;
  for (const [key, { count }] of after) made += count - (before.get(key)?.count ?? 0);
  return made;
}

/** One statement in each database, on a connection of its own. */
async function runInEach(databases: Iterable<{ url: string }>, sql: string): Promise<void> {
  for (const { url } of databases) {
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  }
}

/**
 * Each database of the topology once, with the apps using it, reached as the bench's own (superuser)
 * role, with pg_stat_statements available in it: the statistics of every app's statements.
 */
async function statisticsDatabases(adminUrl: string, urls: Record<string, string>): Promise<{ url: string; apps: string[] }[]> {
  const byName = new Map<string, { url: string; apps: string[] }>();
  for (const [app, url] of Object.entries(urls)) {
    const admin = new URL(adminUrl);
    admin.pathname = new URL(url).pathname;
    const key = admin.pathname;
    const known = byName.get(key) ?? { url: admin.toString(), apps: [] };
    known.apps.push(app);
    byName.set(key, known);
  }
  await runInEach(byName.values(), 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return [...byName.values()];
}

const pgStatsOf = (databases: { url: string }[]) => Promise.all(databases.map(({ url }) => pgStats(url)));
