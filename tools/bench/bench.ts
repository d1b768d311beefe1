import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDatabase, startEmbeddedPostgres } from '@pay/platform';
import { runBaseline } from './baseline';
import { stopAllLoad } from './load';
import { RssSampler } from './memory';
import { observabilityPhase, type ObservabilityOptions } from './observability';
import { describeDelta, pgStats } from './pg-stats';
import { fmt, table, type Row } from './report';
import { authorizeScenario, createPendingPayments, createScenario, trialBalance } from './scenarios';
import { spawnService } from './service';
import { PAYMENT_AMOUNT, setUp } from './setup';
import { webhookBatch, type WebhookBatchResult } from './webhooks';

/** `npm run bench`. Sizes are fixed so that runs compare; the authorize count can be tuned per machine. */
const CONFIG = {
  createRate: 200,
  createDurationS: 15,
  /** Unrecorded, at the same rate: the first seconds measure JIT and cold caches, not the service. */
  warmUpS: 3,
  createInstances: 20,
  authorizeCount: envInt('BENCH_AUTHORIZE_COUNT', 6_000),
  authorizeConnections: envInt('BENCH_AUTHORIZE_CONNECTIONS', 32),
  pendingConcurrency: 32,
  customers: 50,
  /** The service's pool (DB_POOL_MAX default), so that the baseline has no more connections than it. */
  poolSize: 20,
  baselineWorkers: 32,
  baselineDurationS: 10,
  /** The webhooks phase: endpoints registered only then, so that the phases before it send no webhooks. */
  webhookEndpoints: envInt('BENCH_WEBHOOK_ENDPOINTS', 4),
  webhookPayments: envInt('BENCH_WEBHOOK_PAYMENTS', 2_000),
  /** The backlog batch: requests held while these are authorized, then the queue drained. */
  webhookBacklogPayments: envInt('BENCH_WEBHOOK_BACKLOG_PAYMENTS', 1_000),
  /** A failed attempt is retried about 5 s later: give up only after longer than that without an arrival. */
  webhookIdleTimeoutMs: 12_000,
  webhookMaxWaitMs: 60_000,
  /** The observability phase: two services (off, on) loaded in turns, `rounds` batches each. */
  observability: {
    rounds: envInt('BENCH_OBSERVABILITY_ROUNDS', 4),
    batch: envInt('BENCH_OBSERVABILITY_BATCH', 1_500),
    warmUp: 300,
    connections: envInt('BENCH_AUTHORIZE_CONNECTIONS', 32),
    pendingConcurrency: 32,
    customers: 50,
  } satisfies ObservabilityOptions,
};

/** `npm run bench -- --only observability`: that phase alone (a couple of minutes). */
const ONLY = onlyPhase(['observability']);

const TARGETS = { createP99Ms: 10, rssMb: 500, ratio: 0.3, deliveriesPerSecond: 1_000, webhookP99Ms: 100 };

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
/** Last in, first out: the service stops before its database. Runs once, whatever called it. */
const cleanUp = (): Promise<void> =>
  (cleaning ??= (async () => {
    stopAllLoad();
    for (const step of cleanups.reverse()) await step().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  })());

const started = performance.now();
const log = (message: string) => process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}\n`);

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'pay-bench-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  // As root, PostgreSQL runs as `postgres`, who must be able to reach the cluster under this dir.
  if (process.getuid?.() === 0) await chmod(root, 0o755);

  log('starting embedded PostgreSQL');
  const postgres = await startEmbeddedPostgres(join(root, 'postgres'));
  cleanups.push(() => postgres.stop());
  const serviceDatabase = databaseNamed(postgres.url, 'bench_service');
  const baselineDatabase = databaseNamed(postgres.url, 'bench_baseline');
  if (ONLY === 'observability') return observabilityOnly(postgres.url, root);
  await ensureDatabase(serviceDatabase);
  await ensureDatabase(baselineDatabase);

  log('starting the service: node tools/run.js apps/all-in-one/src/main.ts');
  const service = await spawnService({ databaseUrl: serviceDatabase, dataDir: join(root, 'service') });
  cleanups.push(() => service.stop());
  log(`service pid ${service.pid} ready on ${service.url}`);

  const paymentsPerCustomer = Math.ceil((CONFIG.authorizeCount + CONFIG.webhookPayments + CONFIG.webhookBacklogPayments) / CONFIG.customers);
  const fixture = await setUp(service.url, service.adminKey, CONFIG.customers, paymentsPerCustomer);
  log(`set up: integrator, merchant connection, ${fixture.customers.length} topped-up customers`);

  const rss = new RssSampler(service.pid);
  rss.start();
  cleanups.push(async () => rss.stop());

  log(`create: warm-up, ${CONFIG.warmUpS} s at ${CONFIG.createRate}/s (not recorded)`);
  await createScenario(fixture, { rate: CONFIG.createRate, durationS: CONFIG.warmUpS, instances: CONFIG.createInstances });
  log(`create: POST /v1/payments at ${CONFIG.createRate}/s for ${CONFIG.createDurationS} s`);
  const beforeCreate = await pgStats(serviceDatabase);
  const create = await createScenario(fixture, { rate: CONFIG.createRate, durationS: CONFIG.createDurationS, instances: CONFIG.createInstances });
  log(`create: ${create.completed} responses, ${fmt(create.perSecond)}/s, p50 ${fmt(create.p50Ms, 2)} ms, p99 ${fmt(create.p99Ms, 2)} ms, non-2xx ${create.non2xx}`);
  for (const line of describeDelta(beforeCreate, await pgStats(serviceDatabase), create.completed)) log(`  create, PostgreSQL: ${line}`);

  log(`authorize: creating ${CONFIG.authorizeCount} pending payments (untimed)`);
  const pendingStarted = performance.now();
  const paymentIds = await createPendingPayments(fixture, CONFIG.authorizeCount, CONFIG.pendingConcurrency);
  log(`authorize: created in ${fmt((performance.now() - pendingStarted) / 1000)} s; authorizing at full speed over ${CONFIG.authorizeConnections} connections`);
  const beforeAuthorize = await pgStats(serviceDatabase);
  const authorize = await authorizeScenario(fixture, paymentIds, CONFIG.authorizeConnections, () => pgStats(serviceDatabase));
  log(`authorize: ${authorize.load.ok} 2xx in ${fmt(authorize.load.durationS)} s, p50 ${fmt(authorize.load.p50Ms, 2)} ms, p99 ${fmt(authorize.load.p99Ms, 2)} ms`);
  for (const line of describeDelta(beforeAuthorize, authorize.statsAfterLoad, authorize.load.completed)) log(`  authorize, PostgreSQL: ${line}`);
  log(`authorize: statuses read back with GET ${JSON.stringify(authorize.statuses)}`);
  rss.stop();

  // Last, and the only phase with webhook endpoints: the figures above are without any webhook traffic.
  const webhooksRss = new RssSampler(service.pid);
  webhooksRss.start();
  cleanups.push(async () => webhooksRss.stop());
  const webhookOptions = {
    endpoints: CONFIG.webhookEndpoints,
    connections: CONFIG.authorizeConnections,
    pendingConcurrency: CONFIG.pendingConcurrency,
    idleTimeoutMs: CONFIG.webhookIdleTimeoutMs,
    maxWaitMs: CONFIG.webhookMaxWaitMs,
  };
  const snapshot = () => pgStats(serviceDatabase);
  const beforeWebhooks = await snapshot();
  const webhooks = await webhookBatch(fixture, serviceDatabase, { ...webhookOptions, count: CONFIG.webhookPayments, backlog: false }, snapshot, log);
  logWebhooks('webhooks live', webhooks);
  // Per delivery: the batch's authorizations (and their read-back GETs) are in these counters too; the authorize phase gives their share.
  for (const line of describeDelta(beforeWebhooks, webhooks.statsAfterWait, webhooks.arrivals)) log(`  webhooks live (authorizations included), PostgreSQL per delivery: ${line}`);
  const beforeBacklog = await snapshot();
  const backlog = await webhookBatch(fixture, serviceDatabase, { ...webhookOptions, count: CONFIG.webhookBacklogPayments, backlog: true }, snapshot, log);
  logWebhooks('webhooks backlog', backlog);
  for (const line of describeDelta(beforeBacklog, backlog.statsAfterWait, backlog.arrivals)) log(`  webhooks backlog (authorizations included), PostgreSQL per delivery: ${line}`);
  webhooksRss.stop();

  const books = await trialBalance(fixture, service.adminKey);
  log(`trial balance: ${books.balanced ? 'balanced' : 'NOT BALANCED'} (${books.detail})`);

  // The baseline gets the machine to itself, as the service had it.
  await service.stop();
  log(`service stopped; baseline: raw ledger transfers over pg for ${CONFIG.baselineDurationS} s`);
  const baseline = await runBaseline(baselineDatabase, {
    poolSize: CONFIG.poolSize,
    workers: CONFIG.baselineWorkers,
    durationS: CONFIG.baselineDurationS,
    customerCount: CONFIG.customers,
    amount: PAYMENT_AMOUNT,
  });
  log(`baseline: ${baseline.transfers} transfers, ${fmt(baseline.perSecond)}/s, p50 ${fmt(baseline.p50Ms, 2)} ms, p99 ${fmt(baseline.p99Ms, 2)} ms`);
  // Last: two more services, with the machine to themselves too.
  const observability = await observabilityPhase((name) => databaseNamed(postgres.url, name), root, CONFIG.observability, cleanups, log);

  const ratio = authorize.succeededPerSecond / baseline.perSecond;
  const unexpected = webhooks.unexpected + webhooks.eventIdMismatches + backlog.unexpected + backlog.eventIdMismatches;
  const rows: Row[] = [
    { figure: 'create: requests/s', value: fmt(create.perSecond), target: `${CONFIG.createRate} offered` },
    { figure: 'create: p50 latency (ms)', value: fmt(create.p50Ms, 2), target: '' },
    { figure: 'create: p99 latency (ms)', value: fmt(create.p99Ms, 2), target: `< ${TARGETS.createP99Ms}`, pass: create.p99Ms < TARGETS.createP99Ms },
    { figure: 'create: non-2xx + errors', value: String(create.non2xx + create.errors + create.timeouts), target: '0', pass: create.non2xx + create.errors + create.timeouts === 0 },
    { figure: 'authorize: authorizations/s (2xx)', value: fmt(authorize.authorizationsPerSecond), target: '' },
    { figure: 'authorize: p50 latency (ms)', value: fmt(authorize.load.p50Ms, 2), target: '' },
    { figure: 'authorize: p99 latency (ms)', value: fmt(authorize.load.p99Ms, 2), target: '' },
    {
      figure: 'authorize: succeeded (GET)',
      value: `${authorize.statuses['succeeded'] ?? 0}/${paymentIds.length}`,
      target: 'all',
      pass: authorize.statuses['succeeded'] === paymentIds.length,
    },
    { figure: 'succeeded payments/s', value: fmt(authorize.succeededPerSecond), target: '' },
    { figure: 'baseline: pg transfers/s', value: fmt(baseline.perSecond), target: '' },
    { figure: 'succeeded/s ÷ baseline/s', value: `${fmt(ratio * 100)} %`, target: `>= ${TARGETS.ratio * 100} %`, pass: ratio >= TARGETS.ratio },
    { figure: 'service max RSS (MB)', value: fmt(rss.maxMb), target: `< ${TARGETS.rssMb}`, pass: rss.maxMb < TARGETS.rssMb },
    { figure: `webhooks: authorizations/s (${CONFIG.webhookEndpoints} endpoints)`, value: fmt(webhooks.authorize.authorizationsPerSecond), target: '' },
    { figure: 'webhooks: deliveries/s', value: fmt(webhooks.deliveriesPerSecond), target: `>= ${TARGETS.deliveriesPerSecond}`, pass: webhooks.deliveriesPerSecond >= TARGETS.deliveriesPerSecond },
    { figure: 'webhooks: offered deliveries/s', value: fmt(webhooks.offeredPerSecond), target: '' },
    {
      figure: 'webhooks: backlog drain deliveries/s',
      value: fmt(backlog.deliveriesPerSecond),
      target: `>= ${TARGETS.deliveriesPerSecond}`,
      pass: backlog.deliveriesPerSecond >= TARGETS.deliveriesPerSecond,
    },
    { figure: 'webhooks: change→1st attempt p50 (ms)', value: fmt(webhooks.p50Ms), target: '' },
    {
      figure: 'webhooks: change→1st attempt p99 (ms)',
      value: fmt(webhooks.p99Ms),
      target: `< ${TARGETS.webhookP99Ms}`,
      pass: webhooks.p99Ms < TARGETS.webhookP99Ms,
    },
    { figure: 'webhooks: change→attempt start p99, service (ms)', value: fmt(webhooks.serviceView.attemptStartP99Ms), target: '' },
    { figure: 'webhooks: last arrival − last change (s)', value: fmt(webhooks.drainS, 2), target: '' },
    {
      figure: 'webhooks: (event, endpoint) pairs arrived',
      value: `${webhooks.deliveredPairs + backlog.deliveredPairs}/${webhooks.expectedPairs + backlog.expectedPairs}`,
      target: 'all',
      pass: webhooks.expectedPairs > 0 && backlog.expectedPairs > 0 && webhooks.missingPairs + backlog.missingPairs === 0,
    },
    { figure: 'webhooks: duplicates (allowed)', value: String(webhooks.duplicates + backlog.duplicates), target: '' },
    {
      figure: 'webhooks: unexpected requests',
      value: String(unexpected),
      target: '0',
      pass: unexpected === 0,
    },
    { figure: 'webhooks: service max RSS (MB)', value: fmt(webhooksRss.maxMb), target: `< ${TARGETS.rssMb}`, pass: webhooksRss.maxMb < TARGETS.rssMb },
    { figure: 'ledger trial balance', value: books.balanced ? 'balanced' : 'unbalanced', target: 'balanced', pass: books.balanced },
    ...observability.rows,
  ];
  process.stdout.write(
    `\nPayments service benchmark (${CONFIG.authorizeCount} authorizations, ${CONFIG.customers} customers, pool ${CONFIG.poolSize}; ` +
      `webhooks: ${CONFIG.webhookPayments} live + ${CONFIG.webhookBacklogPayments} backlog authorizations × ${CONFIG.webhookEndpoints} endpoints; ` +
      `RSS from ${rss.sampleCount} samples)\n\n${table(rows)}\n`,
  );
}

async function observabilityOnly(postgresUrl: string, root: string): Promise<void> {
  const { rounds, batch } = CONFIG.observability;
  log(`observability: two services (off, on), ${rounds} rounds of ${batch} authorizations each, in turns`);
  const observability = await observabilityPhase((name) => databaseNamed(postgresUrl, name), root, CONFIG.observability, cleanups, log);
  process.stdout.write(`\nCost of observability (${rounds} × ${batch} authorizations per side, ${CONFIG.observability.connections} connections)\n\n${table(observability.rows)}\n`);
}

function logWebhooks(name: string, batch: WebhookBatchResult): void {
  log(
    `${name}: ${batch.arrivals} arrivals, ${fmt(batch.deliveriesPerSecond)}/s over ${fmt(batch.windowS, 2)} s (offered ${fmt(batch.offeredPerSecond)}/s); ` +
      `last arrival ${fmt(batch.drainS, 2)} s after the last state change; first-attempt latency p50 ${fmt(batch.p50Ms)} ms, p99 ${fmt(batch.p99Ms)} ms, max ${fmt(batch.maxMs)} ms`,
  );
  log(
    `${name}: ${batch.deliveredPairs}/${batch.expectedPairs} (payment, endpoint) pairs, ${batch.missingPairs} missing, ${batch.duplicates} duplicates, ` +
      `${batch.unexpected} unexpected, ${batch.eventIdMismatches} event-id mismatches${batch.timedOut ? ' (gave up waiting)' : ''}; ` +
      `bench event-loop delay p99 ${fmt(batch.benchLoopDelayP99Ms, 2)} ms`,
  );
  for (const line of batch.serviceView.lines) log(`  ${name}, service tables: ${line}`);
}

function databaseNamed(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

function onlyPhase<T extends string>(phases: readonly T[]): T | undefined {
  const at = process.argv.indexOf('--only');
  if (at === -1) return undefined;
  const phase = process.argv[at + 1];
  if (!phases.includes(phase as T)) throw new Error(`--only takes one of ${phases.join(', ')}, not '${phase ?? ''}'`);
  return phase as T;
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not '${raw}'`);
  return value;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main().then(
  () => cleanUp().then(() => process.exit(0)),
  (error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    void cleanUp().finally(() => process.exit(1));
  },
);
