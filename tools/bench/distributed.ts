import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { kafkaAvailability, startKafka } from '@pay/kafka';
import { ensureDatabase } from '@pay/platform';
import type { AppName, RequestTopic } from '@pay/contracts';
import { parseInstances, startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { cpuDelta, cpuSnapshot, describeCpu, distributedGroups, sumCpu, type Classify, type CpuDelta, type CpuSnapshot } from './cpu';
import { mergeLoads } from './load';
import { describeDelta, pgStats, type PgStats } from './pg-stats';
import { fmt } from './report';
import { authorizeScenario, createPendingPayments, type AuthorizeResult } from './scenarios';
import { randomAdminKey, sleep } from './service';
import { setUp, type Fixture } from './setup';

export interface DistributedOptions {
  /** Measured authorizations per topology. */
  count: number;
  /** Measured batches per topology (the count split evenly): the two topologies are loaded in turns. */
  rounds: number;
  connections: number;
  pendingConcurrency: number;
  customers: number;
  /** Unrecorded authorizations before the measured ones, per topology: JIT and caches of its processes. */
  warmUp: number;
  /** A database per app (`<base>_<app>`, as docker-compose.yml and deploy/k8s deploy them), else one for all. */
  databasePerService: boolean;
  /** The second topology's instances per app, as start:distributed's --instances takes them (`payments=2,ledger=2`). */
  scaledOut: string;
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
  /** The measured batches taken together. */
  authorize: AuthorizeResult;
  /** Seconds from the first app's spawn to the gateway's /ready. */
  startS: number;
  count: number;
  instances: string;
  /**
   * Each instance's share of the messages of SHARED_TOPICS it handled in the measured batches, by app
   * then instance name (`payments-0`), from each instance's bus_messages_handled_total.
   */
  shares: Record<string, Record<string, number>>;
  /** Over the measured batches, per authorization: bus requests made (each answered by a reply), Kafka messages by kind. */
  perAuthorization: { roundTrips: number } & KafkaMessages;
  /** CPU ms per authorization of the topology's processes: its apps, the broker(s), PostgreSQL (not the bench, not the other topology). */
  cpuMsPerAuthorization: number;
  /** The machine's idle share during the measured batches (0..1). */
  idle: number;
}

/** Messages appended per authorization: requests, replies, and the consumer groups' offset commits (__consumer_offsets). */
export interface KafkaMessages {
  requests: number;
  replies: number;
  offsetCommits: number;
}

/** The topology that waits for its turn: its processes' CPU meanwhile is logged under this name, and not counted. */
const IDLE_TOPOLOGY = 'the other topology (idle)';
/**
 * Before each batch, both topologies have caught up with the last one's events: every subscription's
 * lag (event_store_subscription_lag_seconds, which stays near its 250 ms poll while it keeps up) at most
 * this. Otherwise a batch shares the machine with the projections of the batch before it, the other
 * topology's as often as its own (the first batch with the warm-up's of the other topology).
 */
const SETTLED_LAG_S = 1;
/** How long a batch waits for that at most (then it runs, and the log says so). */
const SETTLE_WAIT_MS_MAX = 30_000;

/** Every counter the phase reports, read before and after each measured batch, and the CPU then. */
interface Reading {
  cpu: CpuSnapshot;
  counters: Counters;
}

/** Counters under names that stay (topics, statements, instances): summed over batches (sumOf). */
interface Counters {
  handled: Handled;
  requests: RequestTotals;
  offsets: TopicOffsets;
  pg: PgStats[];
}

interface Side {
  instances: string;
  topology: DistributedTopology;
  startS: number;
  /** Each database of the topology once, reached as the bench's own role. */
  databases: { url: string; apps: string[] }[];
  admin: Admin;
  fixture: Fixture;
  /** Created ahead, authorized batch by batch. */
  pending: string[];
  batches: (AuthorizeResult & { statsAfterLoad: Reading })[];
  /** The counters before each batch, summed over the batches: with those after, the batches' deltas summed (sumOf). */
  before: Counters | undefined;
  /** Each batch's CPU: by process, which a sum of snapshots would confuse when one exits between batches. */
  cpu: CpuDelta[];
}

/**
 * The authorize scenario over Kafka in two topologies: every app once, and some apps in several
 * instances (`scaledOut`). Each is `npm run start:distributed` (startDistributedTopology, as the
 * launcher and the distributed tests start it), its own databases on the bench's PostgreSQL. Both run
 * at once, on one Apache Kafka node started here (each topology's topics and groups under a prefix of
 * its own; where Java or Maven is missing, each topology starts librdkafka's mock cluster, and the log
 * line names which), and are loaded in turns (one, scaled out, then scaled out, one, …), as the
 * observability phase loads its two services: a change in the machine's speed during the phase falls
 * on both, so their ratio shows what sharing the work between instances costs, not how the machine
 * drifted between two runs a minute apart. Same fixture and same load as the all-in-one authorize phase.
 */
export async function distributedPhase(
  databaseUrl: (name: string) => string,
  root: string,
  options: DistributedOptions,
  cleanups: (() => Promise<unknown>)[],
  log: (line: string) => void,
): Promise<{ one: DistributedResult; scaledOut: DistributedResult }> {
  const kafka = kafkaAvailability().ok ? await startKafka({ brokers: 1, topics: [] }) : undefined;
  if (kafka) cleanups.push(() => kafka.stop());
  const sharedKafka = kafka && { bootstrapServers: kafka.bootstrapServers, nodes: 1 };
  const sides: Side[] = [];
  try {
    for (const [name, instances] of [
      ['bench_distributed', '1'],
      ['bench_distributed_scaled', options.scaledOut],
    ] as const) {
      sides.push(await startSide(databaseUrl(name), join(root, name), instances, sharedKafka, options, cleanups, log));
    }
    for (const side of sides) {
      const warmUp = side.pending.splice(0, options.warmUp);
      await authorizeScenario(side.fixture, warmUp, options.connections, async () => undefined);
      // As a service that has been running for a while: statistics of tables grown past a few rows. The
      // topology starts on empty databases, and autovacuum's first analyze, taken on a few dozen rows,
      // leaves plans that scan whole tables (a foreign-key check of every ledger entry read every
      // operation) for as long as the run lasts, or not, depending on when it came. After ANALYZE the plans
      // are made again, on statistics of the tables as they are now.
      await runInEach(side.databases, 'ANALYZE');
      log(`distributed (instances ${side.instances}): warmed up (${warmUp.length} authorizations, then ANALYZE)`);
    }
    const batch = Math.ceil(options.count / options.rounds);
    log(`distributed: ${options.rounds} rounds of ${batch} authorizations a topology, in turns, at full speed over ${options.connections} connections`);
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        await settle(sides, log);
        const run = await measuredBatch(side, sides.find((other) => other !== side)!, side.pending.splice(0, batch), options.connections);
        log(`distributed (instances ${side.instances}), round ${round + 1}: ${fmt(run.authorizationsPerSecond)} authorizations/s, p99 ${fmt(run.load.p99Ms, 2)} ms`);
      }
    }
    const [one, scaledOut] = sides.map((side) => report(side, log));
    return { one: one!, scaledOut: scaledOut! };
  } catch (error) {
    const tails = sides.flatMap((side) => Object.values(side.topology.instances).flat()).map((app) => `--- ${app.name} ---\n${app.output().slice(-2_000)}`);
    throw new Error(`${(error as Error).message}\n${tails.join('\n')}`);
  } finally {
    for (const side of sides) await side.topology.stop();
    await kafka?.stop();
  }
}

/** Starts one topology on databases of its own, and creates its fixture and every payment it authorizes (untimed). */
async function startSide(
  databaseUrl: string,
  dataDir: string,
  instances: string,
  sharedKafka: { bootstrapServers: string; nodes: number } | undefined,
  options: DistributedOptions,
  cleanups: (() => Promise<unknown>)[],
  log: (line: string) => void,
): Promise<Side> {
  await ensureDatabase(databaseUrl);
  const adminKey = randomAdminKey();
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, SANDBOX: 'true', RATE_LIMIT_PER_SECOND: '0', ADMIN_API_KEY: adminKey, DATA_DIR: dataDir };
  // No KAFKA_BROKERS in env: the topology uses the shared node, or starts a local cluster as start:distributed does.
  const started = performance.now();
  const topology = await startDistributedTopology({ env, dataDir, instances: parseInstances(instances), databasePerService: options.databasePerService, ...(sharedKafka ? { sharedKafka } : {}) });
  cleanups.push(() => topology.stop());
  const startS = (performance.now() - started) / 1000;
  log(
    `distributed (instances ${instances}): apps ready in ${fmt(startS)} s, gateway ${topology.url}, Kafka ${topology.kafkaBrokers} ` +
      `(${sharedKafka ? `Apache Kafka, topics under ${topology.topicPrefix}` : topology.kafka?.kind === 'mock' ? "librdkafka's mock cluster" : 'Apache Kafka'}), ` +
      (options.databasePerService ? 'a database per app' : 'one database for every app'),
  );
  const databases = await statisticsDatabases(databaseUrl, topology.databaseUrls);
  const admin = new Kafka({ clientId: 'bench', brokers: topology.kafkaBrokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  cleanups.push(() => admin.disconnect());
  const fixture = await setUp(topology.url, adminKey, options.customers, Math.ceil((options.count + options.warmUp) / options.customers));
  const pending = await createPendingPayments(fixture, options.warmUp + options.count, options.pendingConcurrency);
  log(`distributed (instances ${instances}): set up; ${options.warmUp} + ${options.count} pending payments created (untimed)`);
  return { instances, topology, startS, databases, admin, fixture, pending, batches: [], before: undefined, cpu: [] };
}

/** Waits until every subscription of both topologies has caught up (SETTLED_LAG_S), at most SETTLE_WAIT_MS_MAX. */
async function settle(sides: readonly Side[], log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + SETTLE_WAIT_MS_MAX;
  for (;;) {
    const lags = (await Promise.all(sides.map(({ topology }) => scrapeMetrics(topology)))).flatMap(subscriptionLags);
    if (lags.every((lag) => lag <= SETTLED_LAG_S)) return;
    if (Date.now() > deadline) {
      log(`distributed: subscriptions still ${fmt(Math.max(...lags), 1)} s behind after ${SETTLE_WAIT_MS_MAX / 1000} s; the batch runs anyway`);
      return;
    }
    await sleep(250);
  }
}

/** Every instance's event_store_subscription_lag_seconds values. */
export const subscriptionLags = (scrape: Scrape): number[] =>
  Object.values(scrape)
    .flatMap((instances) => Object.values(instances))
    .flatMap((text) => text.split('\n').filter((line) => line.startsWith('event_store_subscription_lag_seconds{')))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));

/** One batch at full speed, with every counter read before and after it (the GETs that check the outcome after the reading). */
async function measuredBatch(side: Side, other: Side, paymentIds: string[], connections: number): Promise<AuthorizeResult> {
  const classify = sideGroups(side, other);
  const before = await reading(side, classify, 'before');
  const run = await authorizeScenario(side.fixture, paymentIds, connections, () => reading(side, classify, 'after'));
  side.before = side.before ? sumOf(side.before, before.counters) : before.counters;
  side.cpu.push(cpuDelta(before.cpu, run.statsAfterLoad.cpu));
  side.batches.push(run);
  return run;
}

/** Read next to the load: the CPU last before it and first after it; PostgreSQL's counters, which wait a second for the backends', the other way round. */
async function reading(side: Side, classify: Classify, at: 'before' | 'after'): Promise<Reading> {
  const cpuAfter = at === 'after' ? cpuSnapshot(classify) : undefined;
  const scrape = await scrapeMetrics(side.topology);
  const offsets = await topicOffsets(side.admin, side.topology.topicPrefix);
  const pg = await pgStatsOf(side.databases);
  return { cpu: cpuAfter ?? cpuSnapshot(classify), counters: { handled: handledByInstance(scrape), requests: busRequestTotals(scrape), offsets, pg } };
}

/**
 * `side`'s apps by name (their instances together), the broker, PostgreSQL and the bench as
 * distributedGroups names them; the other topology's apps and the PostgreSQL backends serving them
 * (`postgres: <role> <database> <client> <state>`) apart, as IDLE_TOPOLOGY.
 */
function sideGroups(side: Side, other: Side): Classify {
  const appsByPid = (topology: DistributedTopology) => new Map(Object.entries(topology.instances).flatMap(([app, instances]) => instances.map((instance) => [instance.pid, app] as const)));
  const own = appsByPid(side.topology);
  const idle = appsByPid(other.topology);
  const idleDatabases = new Set(other.databases.map(({ url }) => new URL(url).pathname.slice(1)));
  return ({ pid, command }) => {
    const app = own.get(pid);
    if (app) return app;
    if (idle.has(pid) || (command.startsWith('postgres:') && command.split(' ').some((word) => idleDatabases.has(word)))) return IDLE_TOPOLOGY;
    return distributedGroups({ pid, command });
  };
}

/**
 * a + b, number by number, through Maps, arrays and plain objects (any other value: a's). Counters only
 * grow, so the sum of the readings before each batch and the sum of those after each differ by the sum
 * of the batches' own deltas, and the deltas' functions apply to the sums as they are.
 */
export function sumOf<T>(a: T, b: T): T {
  if (typeof a === 'number') return (a + (b as number)) as T;
  if (a instanceof Map) {
    const sum = new Map(a);
    for (const [key, value] of b as Map<unknown, unknown>) sum.set(key, sum.has(key) ? sumOf(sum.get(key), value) : value);
    return sum as T;
  }
  if (Array.isArray(a)) return a.map((value, i) => sumOf(value, (b as unknown[])[i])) as T;
  if (a !== null && typeof a === 'object') {
    const sum: Record<string, unknown> = { ...(b as Record<string, unknown>) };
    for (const [key, value] of Object.entries(a)) sum[key] = key in sum ? sumOf(value, sum[key]) : value;
    return sum as T;
  }
  return a;
}

/** The side's batches as one run: its figures, and the log lines of where the time went. */
function report(side: Side, log: (line: string) => void): DistributedResult {
  const name = `distributed (instances ${side.instances})`;
  const before = side.before!;
  const after = side.batches.map((run) => run.statsAfterLoad.counters).reduce((sum, counters) => sumOf(sum, counters));
  const load = mergeLoads(side.batches.map((run) => run.load));
  const statuses: Record<string, number> = {};
  for (const run of side.batches) for (const [status, n] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const authorize: AuthorizeResult = {
    load,
    authorizationsPerSecond: load.ok / load.durationS,
    statuses,
    statusById: new Map(side.batches.flatMap((run) => [...run.statusById])),
    loadEndedAt: side.batches.at(-1)!.loadEndedAt,
    succeededPerSecond: (statuses['succeeded'] ?? 0) / load.durationS,
  };
  const perAuthorization = { roundTrips: roundTrips(before.requests, after.requests) / load.completed, ...kafkaMessages(before.offsets, after.offsets, load.completed) };
  const cpu = sumCpu(side.cpu);
  log(`${name}: ${load.ok} 2xx in ${fmt(load.durationS)} s, p50 ${fmt(load.p50Ms, 2)} ms, p99 ${fmt(load.p99Ms, 2)} ms; statuses ${JSON.stringify(statuses)}`);
  log(`  ${name}, ${describeCpu(cpu, load.completed, 'authorization')}`);
  for (const [i, { apps }] of side.databases.entries()) {
    for (const line of describeDelta(before.pg[i]!, after.pg[i]!, load.completed)) log(`  ${name}, PostgreSQL (${apps.join(', ')}): ${line}`);
  }
  log(`  ${name}, bus requests from send to reply, mean (count): ${describeBusRequests(before.requests, after.requests)}`);
  log(
    `  ${name}, per authorization: ${fmt(perAuthorization.roundTrips, 2)} bus round trips; Kafka messages ${fmt(perAuthorization.requests, 2)} on request topics, ` +
      `${fmt(perAuthorization.replies, 2)} on reply topics, ${fmt(perAuthorization.offsetCommits, 2)} offset commits (${describeTopics(before.offsets, after.offsets, load.completed)})`,
  );
  const counted = [...cpu.runMs].filter(([group]) => group !== 'bench' && group !== 'other' && group !== IDLE_TOPOLOGY);
  return {
    authorize,
    startS: side.startS,
    // Every payment of the batches, each read back once: those whose request failed count too.
    count: side.batches.reduce((sum, run) => sum + run.statusById.size, 0),
    instances: side.instances,
    shares: sharesOf(before.handled, after.handled),
    perAuthorization,
    cpuMsPerAuthorization: counted.reduce((sum, [, ms]) => sum + ms, 0) / load.completed,
    idle: cpu.idle,
  };
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

/** The topics under `prefix` (named without it), and the consumer groups' offset commits, which every topology on the cluster shares. */
async function topicOffsets(admin: Admin, prefix: string): Promise<TopicOffsets> {
  const offsets: TopicOffsets = new Map();
  for (const topic of await admin.listTopics()) {
    if (!topic.startsWith(prefix) && topic !== '__consumer_offsets') continue;
    const partitions = await admin.fetchTopicOffsets(topic);
    offsets.set(topic === '__consumer_offsets' ? topic : topic.slice(prefix.length), partitions.reduce((sum, { high }) => sum + Number(high), 0));
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
