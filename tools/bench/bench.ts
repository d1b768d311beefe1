import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDatabase, startEmbeddedPostgres } from '@pay/platform';
import { runBaseline } from './baseline';
import { stopAllLoad } from './load';
import { RssSampler } from './memory';
import { describeDelta, pgStats } from './pg-stats';
import { fmt, table, type Row } from './report';
import { authorizeScenario, createPendingPayments, createScenario, trialBalance } from './scenarios';
import { spawnService } from './service';
import { PAYMENT_AMOUNT, setUp } from './setup';

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
};

const TARGETS = { createP99Ms: 10, rssMb: 500, ratio: 0.3 };

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
  await ensureDatabase(serviceDatabase);
  await ensureDatabase(baselineDatabase);

  log('starting the service: node tools/run.js apps/all-in-one/src/main.ts');
  const service = await spawnService({ databaseUrl: serviceDatabase, dataDir: join(root, 'service') });
  cleanups.push(() => service.stop());
  log(`service pid ${service.pid} ready on ${service.url}`);

  const fixture = await setUp(service.url, service.adminKey, CONFIG.customers, Math.ceil(CONFIG.authorizeCount / CONFIG.customers));
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

  const ratio = authorize.succeededPerSecond / baseline.perSecond;
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
    { figure: 'ledger trial balance', value: books.balanced ? 'balanced' : 'unbalanced', target: 'balanced', pass: books.balanced },
  ];
  process.stdout.write(
    `\nPayments service benchmark (${CONFIG.authorizeCount} authorizations, ${CONFIG.customers} customers, pool ${CONFIG.poolSize}; ` +
      `RSS from ${rss.sampleCount} samples)\n\n${table(rows)}\n`,
  );
}

function databaseNamed(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
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
