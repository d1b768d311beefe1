import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from '@pay/platform';
import { runBaseline, type BaselineResult } from './baseline';
import { allInOneGroups, cpuDelta, cpuSnapshot, describeCpu, machineGroups, type CpuSnapshot } from './cpu';
import { distributedPhase, SHARED_TOPICS, SHARING, type DistributedResult } from './distributed';
import { stopAllLoad, type LoadResult } from './load';
import { RssSampler } from './memory';
import { observabilityPhase, type ObservabilityOptions, type ObservabilityResult } from './observability';
import { describeDelta, pgStats, startWithStatements } from './pg-stats';
import { fmt, table, type Row } from './report';
import { authorizeScenario, createMaxScenario, createPendingPayments, createScenario, trialBalance, type AuthorizeResult } from './scenarios';
import { spawnService } from './service';
import { PAYMENT_AMOUNT, setUp } from './setup';
import { storedPhase, storedSummary, type StoredOptions, type StoredSize } from './stored';
import { consolePhase, type ConsoleOptions, type ConsoleSize } from './console';
import { webhookBatch, type WebhookBatchResult } from './webhooks';

/**
 * The phases, in the order a full run runs them. `--only a[,b…]` runs those alone (webhooks, baseline
 * and distributed bring authorize with them: their figures are ratios to it); `--distributed` is
 * `--only distributed`; `--stored N` adds the stored phase to a full run (`--only stored` seeds
 * 1,000,000 unless given `--stored N`).
 */
const PHASES = ['create', 'authorize', 'webhooks', 'create-max', 'baseline', 'distributed', 'stored', 'console', 'observability'] as const;
type Phase = (typeof PHASES)[number];
const FULL_RUN = !process.argv.includes('--only') && !process.argv.includes('--distributed');
const STORED_SIZE = storedSize();
const SELECTED = selectPhases();
const ran = (phase: Phase) => SELECTED.has(phase);

/** `npm run bench`. Sizes are fixed so that runs compare; the authorize count can be tuned per machine. */
const CONFIG = {
  createRate: 200,
  createDurationS: 15,
  /** Unrecorded, at the same rate: the first seconds measure JIT and cold caches, not the service. */
  warmUpS: 3,
  createInstances: 20,
  /** create-max: as fast as the service answers. */
  createMaxConnections: envInt('BENCH_CREATE_MAX_CONNECTIONS', 64),
  createMaxDurationS: envInt('BENCH_CREATE_MAX_SECONDS', 10),
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
  /** The distributed phase: the authorize scenario against start:distributed, one instance of each app and scaled out, in turns. */
  distributed: {
    /** Per topology, about 20 s of load on 2 cores: its p99 is then the 60th slowest answer, not the 10th of a 4 s run. */
    count: envInt('BENCH_DISTRIBUTED_COUNT', 6_000),
    /** Batches per topology (750 authorizations each): the two take turns this many times each. */
    rounds: envInt('BENCH_DISTRIBUTED_ROUNDS', 8),
    /** Enough for the tables to grow past the size at which whole-table scans are the cheaper plan (then analyzed). */
    warmUp: envInt('BENCH_DISTRIBUTED_WARM_UP', 1_000),
    connections: envInt('BENCH_AUTHORIZE_CONNECTIONS', 32),
    pendingConcurrency: 32,
    customers: 50,
    /** The second topology's instances: the work of the authorization's two hops shared. */
    scaledOut: process.env['BENCH_DISTRIBUTED_INSTANCES'] ?? 'payments=2,ledger=2',
    // As deployed (docker-compose.yml, deploy/k8s): each app's event store its own, read by its own subscriptions only.
    databasePerService: process.env['BENCH_DISTRIBUTED_DATABASE_PER_SERVICE'] !== 'false',
  },
  /** The stored phase: the reference size, then --stored N, each on its own database. */
  stored: {
    sizes: [...new Set([envInt('BENCH_STORED_SMALL', 10_000), STORED_SIZE ?? 1_000_000])].sort((a, b) => a - b),
    customers: 50,
    rate: 200,
    durationS: envInt('BENCH_STORED_SECONDS', 10),
    warmUpS: 3,
    instances: 20,
    authorizeCount: envInt('BENCH_STORED_AUTHORIZE_COUNT', 3_000),
    connections: envInt('BENCH_AUTHORIZE_CONNECTIONS', 32),
    pendingConcurrency: 32,
    checkpoints: process.env['BENCH_STORED_CHECKPOINTS'] === 'all' ? 'all' : 'handled',
  } satisfies StoredOptions,
  /** The console phase (`--only console`): the reference size and --stored N (default 1,000,000). */
  console: {
    sizes: [...new Set([envInt('BENCH_STORED_SMALL', 10_000), STORED_SIZE ?? 1_000_000])].sort((a, b) => a - b),
    requests: envInt('BENCH_CONSOLE_REQUESTS', 500),
    concurrency: envInt('BENCH_CONSOLE_CONCURRENCY', 4),
    stored: { sizes: [], customers: 50, rate: 1, durationS: 1, warmUpS: 1, instances: 1, authorizeCount: 1, connections: 1, pendingConcurrency: 1, checkpoints: 'handled' },
  } satisfies ConsoleOptions,
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

/** The targets' table, and the bench's own checks. */
const TARGETS = {
  createP99Ms: 5,
  createMaxPerSecond: 1_500,
  rssMb: 500,
  /** Settled payments/s ÷ the bare transfer loop on the same hot accounts. */
  ratio: 1,
  authorizeP99Ms: 100,
  deliveriesPerSecond: 1_000,
  webhookP99Ms: 100,
  /** Authorizations/s with the webhook endpoints ÷ without. */
  webhookAuthorizeRatio: 0.8,
  /** start:distributed settled payments/s ÷ all-in-one. */
  distributedRatio: 0.5,
  /** start:distributed: p99 of the authorizations, ms. */
  distributedP99Ms: 250,
  /** start:distributed: CPU per authorization (every process of the topology) ÷ all-in-one's (service and PostgreSQL). */
  distributedCpuRatio: 2.5,
  /** start:distributed with two instances of payments and ledger ÷ one each, succeeded/s. */
  distributedScaledOutRatio: 0.9,
};

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

/** What each phase measured; undefined when it did not run. */
interface Results {
  create?: LoadResult;
  createMax?: LoadResult & { okPerSecond: number };
  /** cpuMsPerAuthorization: the service's and PostgreSQL's CPU (not the bench's); idle: the machine's idle share meanwhile. */
  authorize?: AuthorizeResult & { count: number; cpuMsPerAuthorization: number; idle: number };
  rss?: RssSampler;
  webhooks?: { live: WebhookBatchResult; backlog: WebhookBatchResult; rss: RssSampler };
  books?: { balanced: boolean; detail: string };
  baseline?: BaselineResult;
  distributed?: DistributedResult;
  /** The same, with CONFIG.distributed.scaledOut instances. */
  distributedScaledOut?: DistributedResult;
  stored?: { rows: Row[]; sizes: StoredSize[] };
  console?: { rows: Row[]; sizes: ConsoleSize[] };
  observability?: ObservabilityResult;
}

async function main(): Promise<void> {
  log(`phases: ${[...SELECTED].join(', ')}`);
  const root = await mkdtemp(join(tmpdir(), 'pay-bench-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  // As root, PostgreSQL runs as `postgres`, who must be able to reach the cluster under this dir.
  if (process.getuid?.() === 0) await chmod(root, 0o755);

  log('starting embedded PostgreSQL (pg_stat_statements preloaded)');
  const postgres = await startWithStatements(join(root, 'postgres'));
  cleanups.push(() => postgres.stop());
  const results: Results = {};

  if (ran('create') || ran('authorize') || ran('webhooks') || ran('create-max')) await servicePhases(postgres.url, root, results);

  if (ran('baseline')) {
    const baselineDatabase = databaseNamed(postgres.url, 'bench_baseline');
    await ensureDatabase(baselineDatabase);
    log(`baseline: raw ledger transfers over pg for ${CONFIG.baselineDurationS} s`);
    results.baseline = await runBaseline(baselineDatabase, {
      poolSize: CONFIG.poolSize,
      workers: CONFIG.baselineWorkers,
      durationS: CONFIG.baselineDurationS,
      customerCount: CONFIG.customers,
      amount: PAYMENT_AMOUNT,
      cpu: () => cpuSnapshot(machineGroups),
    });
    const b = results.baseline;
    log(`baseline: ${b.transfers} transfers, ${fmt(b.perSecond)}/s, p50 ${fmt(b.p50Ms, 2)} ms, p99 ${fmt(b.p99Ms, 2)} ms`);
    if (b.cpu) log(`  baseline, ${describeCpu(b.cpu, b.transfers, 'transfer')}`);
  }
  if (ran('distributed')) {
    log(`distributed: the seven apps over Kafka (start:distributed) twice, one instance each and ${CONFIG.distributed.scaledOut}, ${CONFIG.distributed.count} authorizations each, in turns`);
    const { one, scaledOut } = await distributedPhase((name) => databaseNamed(postgres.url, name), root, CONFIG.distributed, cleanups, log);
    results.distributed = one;
    results.distributedScaledOut = scaledOut;
  }
  if (ran('stored')) {
    log(`stored: ${CONFIG.stored.sizes.map((n) => n.toLocaleString('en')).join(' and ')} payments seeded, each on its own database (checkpoints: ${CONFIG.stored.checkpoints})`);
    results.stored = await storedPhase(root, CONFIG.stored, cleanups, log);
  }
  if (ran('console')) {
    log(`console: ${CONFIG.console.sizes.map((n) => n.toLocaleString('en')).join(' and ')} payments seeded, each on its own database; ${CONFIG.console.requests} requests a figure, ${CONFIG.console.concurrency} at a time`);
    results.console = await consolePhase(root, CONFIG.console, cleanups, log);
  }
  // Last: two more services, with the machine to themselves too.
  if (ran('observability')) {
    const { rounds, batch } = CONFIG.observability;
    log(`observability: two services (off, on), ${rounds} rounds of ${batch} authorizations each, in turns`);
    results.observability = await observabilityPhase((name) => databaseNamed(postgres.url, name), root, CONFIG.observability, cleanups, log);
  }

  process.stdout.write(
    `\nPayments service benchmark, the performance targets (${[...SELECTED].join(', ')})\n\n${table(summaryRows(results))}\n` +
      `\nEvery figure (${describeRun()})\n\n${table(detailRows(results))}\n` +
      (results.console ? `\nThe console with payments stored (p99 of each page beside its API baseline)\n\n${table(results.console.rows)}\n` : ''),
  );
}

/** pg_stat_statements in the service's database: each phase's log lists the statements it sent per request. */
async function createStatementsExtension(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } finally {
    await client.end();
  }
}

/** The all-in-one service as deployed: create, authorize, webhooks and create-max, in that order, then the books. */
async function servicePhases(postgresUrl: string, root: string, results: Results): Promise<void> {
  const serviceDatabase = databaseNamed(postgresUrl, 'bench_service');
  await ensureDatabase(serviceDatabase);
  await createStatementsExtension(serviceDatabase);
  log('starting the service: node tools/run.js apps/all-in-one/src/main.ts');
  const service = await spawnService({ databaseUrl: serviceDatabase, dataDir: join(root, 'service') });
  cleanups.push(() => service.stop());
  log(`service pid ${service.pid} ready on ${service.url}`);

  const paymentsPerCustomer = Math.ceil((CONFIG.authorizeCount + CONFIG.webhookPayments + CONFIG.webhookBacklogPayments) / CONFIG.customers);
  const fixture = await setUp(service.url, service.adminKey, CONFIG.customers, paymentsPerCustomer);
  log(`set up: integrator, merchant connection, ${fixture.customers.length} topped-up customers`);

  const serviceCpu = (): CpuSnapshot => cpuSnapshot(allInOneGroups(service.pid), service.pid);
  const rss = new RssSampler(service.pid);
  rss.start();
  cleanups.push(async () => rss.stop());
  results.rss = rss;

  if (ran('create')) {
    log(`create: warm-up, ${CONFIG.warmUpS} s at ${CONFIG.createRate}/s (not recorded)`);
    await createScenario(fixture, { rate: CONFIG.createRate, durationS: CONFIG.warmUpS, instances: CONFIG.createInstances });
    log(`create: POST /v1/payments at ${CONFIG.createRate}/s for ${CONFIG.createDurationS} s`);
    const beforeCreate = await pgStats(serviceDatabase);
    const cpuBeforeCreate = serviceCpu();
    const create = await createScenario(fixture, { rate: CONFIG.createRate, durationS: CONFIG.createDurationS, instances: CONFIG.createInstances });
    const cpuAfterCreate = serviceCpu();
    log(`create: ${create.completed} responses, ${fmt(create.perSecond)}/s, p50 ${fmt(create.p50Ms, 2)} ms, p99 ${fmt(create.p99Ms, 2)} ms, non-2xx ${create.non2xx}`);
    log(`  create, ${describeCpu(cpuDelta(cpuBeforeCreate, cpuAfterCreate), create.completed)}`);
    for (const line of describeDelta(beforeCreate, await pgStats(serviceDatabase), create.completed)) log(`  create, PostgreSQL: ${line}`);
    results.create = create;
  }

  if (ran('authorize')) {
    log(`authorize: creating ${CONFIG.authorizeCount} pending payments (untimed)`);
    const pendingStarted = performance.now();
    const paymentIds = await createPendingPayments(fixture, CONFIG.authorizeCount, CONFIG.pendingConcurrency);
    log(`authorize: created in ${fmt((performance.now() - pendingStarted) / 1000)} s; authorizing at full speed over ${CONFIG.authorizeConnections} connections`);
    const beforeAuthorize = await pgStats(serviceDatabase);
    const cpuBeforeAuthorize = serviceCpu();
    // The CPU snapshot first: pgStats waits a second for the backends' counters.
    const authorize = await authorizeScenario(fixture, paymentIds, CONFIG.authorizeConnections, async () => ({ cpu: serviceCpu(), pg: await pgStats(serviceDatabase) }));
    log(`authorize: ${authorize.load.ok} 2xx in ${fmt(authorize.load.durationS)} s, p50 ${fmt(authorize.load.p50Ms, 2)} ms, p99 ${fmt(authorize.load.p99Ms, 2)} ms`);
    const authorizeCpu = cpuDelta(cpuBeforeAuthorize, authorize.statsAfterLoad.cpu);
    log(`  authorize, ${describeCpu(authorizeCpu, authorize.load.completed, 'authorization')}`);
    for (const line of describeDelta(beforeAuthorize, authorize.statsAfterLoad.pg, authorize.load.completed)) log(`  authorize, PostgreSQL: ${line}`);
    log(`authorize: statuses read back with GET ${JSON.stringify(authorize.statuses)}`);
    const cpuMs = [...authorizeCpu.runMs].filter(([group]) => group === 'service' || group === 'PostgreSQL').reduce((sum, [, ms]) => sum + ms, 0);
    results.authorize = { ...authorize, count: paymentIds.length, cpuMsPerAuthorization: cpuMs / authorize.load.completed, idle: authorizeCpu.idle };
  }
  rss.stop();

  // The only phase with webhook endpoints (deleted at its end): the figures above are without any webhook traffic.
  if (ran('webhooks')) {
    const webhooksRss = new RssSampler(service.pid);
    webhooksRss.start();
    cleanups.push(async () => webhooksRss.stop());
    const webhookOptions = {
      endpoints: CONFIG.webhookEndpoints,
      connections: CONFIG.authorizeConnections,
      pendingConcurrency: CONFIG.pendingConcurrency,
      idleTimeoutMs: CONFIG.webhookIdleTimeoutMs,
      maxWaitMs: CONFIG.webhookMaxWaitMs,
      cpu: serviceCpu,
    };
    const snapshot = () => pgStats(serviceDatabase);
    const beforeWebhooks = await snapshot();
    const live = await webhookBatch(fixture, serviceDatabase, { ...webhookOptions, count: CONFIG.webhookPayments, backlog: false }, snapshot, log);
    logWebhooks('webhooks live', live);
    if (live.cpu) log(`  webhooks live, ${describeCpu(live.cpu, live.authorize.load.completed, `authorization (its ${CONFIG.webhookEndpoints} deliveries included)`)}`);
    // Per delivery: the batch's authorizations (and their read-back GETs) are in these counters too; the authorize phase gives their share.
    for (const line of describeDelta(beforeWebhooks, live.statsAfterWait, live.arrivals)) log(`  webhooks live (authorizations included), PostgreSQL per delivery: ${line}`);
    const beforeBacklog = await snapshot();
    const backlog = await webhookBatch(fixture, serviceDatabase, { ...webhookOptions, count: CONFIG.webhookBacklogPayments, backlog: true }, snapshot, log);
    logWebhooks('webhooks backlog', backlog);
    for (const line of describeDelta(beforeBacklog, backlog.statsAfterWait, backlog.arrivals)) log(`  webhooks backlog (authorizations included), PostgreSQL per delivery: ${line}`);
    webhooksRss.stop();
    results.webhooks = { live, backlog, rss: webhooksRss };
  }

  // After the phases it would disturb: it leaves thousands of payments for the projections to catch up on.
  if (ran('create-max')) {
    const maxRss = new RssSampler(service.pid);
    maxRss.start();
    log(`create-max: POST /v1/payments as fast as it answers, ${CONFIG.createMaxConnections} connections, ${CONFIG.createMaxDurationS} s`);
    const beforeMax = await pgStats(serviceDatabase);
    const cpuBeforeMax = serviceCpu();
    const createMax = await createMaxScenario(fixture, { connections: CONFIG.createMaxConnections, durationS: CONFIG.createMaxDurationS });
    const cpuAfterMax = serviceCpu();
    maxRss.stop();
    log(
      `create-max: ${createMax.ok} 2xx in ${fmt(createMax.durationS, 2)} s = ${fmt(createMax.okPerSecond)}/s, non-2xx ${createMax.non2xx} ${JSON.stringify(createMax.statusCounts)}, ` +
        `errors ${createMax.errors}, timeouts ${createMax.timeouts}; p50 ${fmt(createMax.p50Ms, 2)} ms, p99 ${fmt(createMax.p99Ms, 2)} ms; service max RSS ${fmt(maxRss.maxMb)} MB`,
    );
    log(`  create-max, ${describeCpu(cpuDelta(cpuBeforeMax, cpuAfterMax), createMax.completed)}`);
    for (const line of describeDelta(beforeMax, await pgStats(serviceDatabase), createMax.completed)) log(`  create-max, PostgreSQL: ${line}`);
    results.createMax = createMax;
  }

  results.books = await trialBalance(fixture, service.adminKey);
  log(`trial balance: ${results.books.balanced ? 'balanced' : 'NOT BALANCED'} (${results.books.detail})`);
  // The phases after this one get the machine to themselves, as the service had it.
  await service.stop();
  log('service stopped');
}

/** The sizes behind the figures, for the phases that ran. */
function describeRun(): string {
  const parts = [`${CONFIG.customers} customers, pool ${CONFIG.poolSize}`];
  if (ran('authorize')) parts.push(`${CONFIG.authorizeCount} authorizations over ${CONFIG.authorizeConnections} connections`);
  if (ran('create-max')) parts.push(`create-max ${CONFIG.createMaxConnections} connections for ${CONFIG.createMaxDurationS} s`);
  if (ran('webhooks')) parts.push(`webhooks: ${CONFIG.webhookPayments} live + ${CONFIG.webhookBacklogPayments} backlog authorizations × ${CONFIG.webhookEndpoints} endpoints`);
  if (ran('distributed')) parts.push(`distributed: ${CONFIG.distributed.count} authorizations`);
  if (ran('stored')) parts.push(`stored: ${CONFIG.stored.sizes.join(' and ')} payments, ${CONFIG.stored.authorizeCount} authorizations each, checkpoints ${CONFIG.stored.checkpoints}`);
  return parts.join('; ');
}

const percent = (ratio: number) => `${fmt(ratio * 100)} %`;
const notRun = (figure: string, target: string, value: string): Row => ({ figure, value, target });

/** The targets' table: one row per figure, in its order, for the phases that ran. */
function summaryRows(r: Results): Row[] {
  const rows: Row[] = [];
  const { authorize, baseline, create, createMax, webhooks, distributed, stored } = r;
  if (authorize && baseline) {
    const ratio = authorize.succeededPerSecond / baseline.perSecond;
    rows.push({ figure: 'settled payments/s ÷ bare per-transfer loop (same hot accounts)', value: percent(ratio), target: `>= ${TARGETS.ratio * 100} %`, pass: ratio >= TARGETS.ratio });
  }
  if (authorize) {
    rows.push({ figure: 'authorize p99 at that throughput (ms)', value: fmt(authorize.load.p99Ms, 2), target: `< ${TARGETS.authorizeP99Ms}`, pass: authorize.load.p99Ms < TARGETS.authorizeP99Ms });
  }
  if (create) rows.push({ figure: `create p99 at ${CONFIG.createRate} requests/s (ms)`, value: fmt(create.p99Ms, 2), target: `< ${TARGETS.createP99Ms}`, pass: create.p99Ms < TARGETS.createP99Ms });
  if (createMax) {
    rows.push({ figure: 'create: max requests/s (2xx)', value: fmt(createMax.okPerSecond), target: `>= ${TARGETS.createMaxPerSecond}`, pass: createMax.okPerSecond >= TARGETS.createMaxPerSecond });
  }
  if (webhooks && authorize) {
    const ratio = webhooks.live.authorize.authorizationsPerSecond / authorize.authorizationsPerSecond;
    rows.push({
      figure: `authorizations/s with ${CONFIG.webhookEndpoints} webhook endpoints ÷ without`,
      value: percent(ratio),
      target: `>= ${TARGETS.webhookAuthorizeRatio * 100} %`,
      pass: ratio >= TARGETS.webhookAuthorizeRatio,
    });
  }
  if (webhooks) {
    rows.push({
      figure: 'state change → first webhook attempt p99, under that load (ms)',
      value: fmt(webhooks.live.p99Ms),
      target: `< ${TARGETS.webhookP99Ms}`,
      pass: webhooks.live.p99Ms < TARGETS.webhookP99Ms,
    });
  }
  const storedFigure = 'create, retrieve, authorize with N stored payments ÷ with 10k';
  const stored18 = stored ? storedSummary(stored.sizes) : undefined;
  if (stored18) rows.push({ figure: storedFigure, value: stored18.value, target: `within ${STORED_WITHIN} %`, pass: stored18.pass });
  else if (stored) rows.push(notRun(storedFigure, `within ${STORED_WITHIN} %`, 'one size only: give --stored N above BENCH_STORED_SMALL'));
  else if (FULL_RUN) rows.push(notRun(storedFigure, `within ${STORED_WITHIN} %`, 'not run: npm run bench -- --stored 1000000'));
  if (distributed && authorize) {
    const ratio = distributed.authorize.succeededPerSecond / authorize.succeededPerSecond;
    rows.push({ figure: 'same scenario over Kafka (start:distributed) ÷ all-in-one', value: percent(ratio), target: `>= ${TARGETS.distributedRatio * 100} %`, pass: ratio >= TARGETS.distributedRatio });
    const cpuRatio = distributed.cpuMsPerAuthorization / authorize.cpuMsPerAuthorization;
    rows.push({ figure: 'over Kafka ÷ all-in-one, CPU per authorization (every process)', value: `${fmt(cpuRatio, 2)}×`, target: `<= ${TARGETS.distributedCpuRatio}×`, pass: cpuRatio <= TARGETS.distributedCpuRatio });
    rows.push({ figure: 'over Kafka: p99 (ms)', value: fmt(distributed.authorize.load.p99Ms, 1), target: `< ${TARGETS.distributedP99Ms}`, pass: distributed.authorize.load.p99Ms < TARGETS.distributedP99Ms });
  }
  if (distributed && r.distributedScaledOut) {
    const ratio = r.distributedScaledOut.authorize.succeededPerSecond / distributed.authorize.succeededPerSecond;
    rows.push({ figure: `over Kafka, ${r.distributedScaledOut.instances} ÷ one instance each`, value: percent(ratio), target: `>= ${TARGETS.distributedScaledOutRatio * 100} %`, pass: ratio >= TARGETS.distributedScaledOutRatio });
  }
  return rows;
}
const STORED_WITHIN = 20;

/** Every figure of the phases that ran, with the bench's own checks. */
function detailRows(r: Results): Row[] {
  const rows: Row[] = [];
  const { create, createMax, authorize, rss, webhooks, books, baseline, distributed, distributedScaledOut, stored, observability } = r;
  if (create) {
    rows.push(
      { figure: 'create: requests/s', value: fmt(create.perSecond), target: `${CONFIG.createRate} offered` },
      { figure: 'create: p50 latency (ms)', value: fmt(create.p50Ms, 2), target: '' },
      { figure: 'create: p99 latency (ms)', value: fmt(create.p99Ms, 2), target: `< ${TARGETS.createP99Ms}`, pass: create.p99Ms < TARGETS.createP99Ms },
      { figure: 'create: non-2xx + errors', value: String(create.non2xx + create.errors + create.timeouts), target: '0', pass: create.non2xx + create.errors + create.timeouts === 0 },
    );
  }
  if (createMax) {
    const failed = createMax.non2xx + createMax.errors + createMax.timeouts;
    rows.push(
      { figure: `create-max: requests/s, 2xx (${CONFIG.createMaxConnections} connections)`, value: fmt(createMax.okPerSecond), target: `>= ${TARGETS.createMaxPerSecond}`, pass: createMax.okPerSecond >= TARGETS.createMaxPerSecond },
      { figure: 'create-max: p50 / p99 latency (ms)', value: `${fmt(createMax.p50Ms, 2)} / ${fmt(createMax.p99Ms, 2)}`, target: '' },
      { figure: 'create-max: non-2xx + errors + timeouts', value: String(failed), target: '0', pass: failed === 0 },
    );
  }
  if (authorize) {
    rows.push(
      { figure: 'authorize: authorizations/s (2xx)', value: fmt(authorize.authorizationsPerSecond), target: '' },
      { figure: 'authorize: p50 latency (ms)', value: fmt(authorize.load.p50Ms, 2), target: '' },
      { figure: 'authorize: p99 latency (ms)', value: fmt(authorize.load.p99Ms, 2), target: `< ${TARGETS.authorizeP99Ms}`, pass: authorize.load.p99Ms < TARGETS.authorizeP99Ms },
      {
        figure: 'authorize: succeeded (GET)',
        value: `${authorize.statuses['succeeded'] ?? 0}/${authorize.count}`,
        target: 'all',
        pass: authorize.statuses['succeeded'] === authorize.count,
      },
      { figure: 'succeeded payments/s', value: fmt(authorize.succeededPerSecond), target: '' },
    );
  }
  if (baseline) rows.push({ figure: 'baseline: pg transfers/s', value: fmt(baseline.perSecond), target: '' });
  if (authorize && baseline) {
    const ratio = authorize.succeededPerSecond / baseline.perSecond;
    rows.push({ figure: 'succeeded/s ÷ baseline/s', value: percent(ratio), target: `>= ${TARGETS.ratio * 100} %`, pass: ratio >= TARGETS.ratio });
  }
  if (rss && (create || authorize)) rows.push({ figure: 'service max RSS (MB)', value: fmt(rss.maxMb), target: `< ${TARGETS.rssMb}`, pass: rss.maxMb < TARGETS.rssMb });
  if (webhooks) {
    const { live, backlog } = webhooks;
    const unexpected = live.unexpected + live.eventIdMismatches + backlog.unexpected + backlog.eventIdMismatches;
    rows.push(
      { figure: `webhooks: authorizations/s (${CONFIG.webhookEndpoints} endpoints)`, value: fmt(live.authorize.authorizationsPerSecond), target: '' },
      ...(authorize
        ? [
            {
              figure: 'webhooks: authorizations/s ÷ without endpoints',
              value: percent(live.authorize.authorizationsPerSecond / authorize.authorizationsPerSecond),
              target: `>= ${TARGETS.webhookAuthorizeRatio * 100} %`,
              pass: live.authorize.authorizationsPerSecond / authorize.authorizationsPerSecond >= TARGETS.webhookAuthorizeRatio,
            },
          ]
        : []),
      { figure: 'webhooks: deliveries/s', value: fmt(live.deliveriesPerSecond), target: `>= ${TARGETS.deliveriesPerSecond}`, pass: live.deliveriesPerSecond >= TARGETS.deliveriesPerSecond },
      { figure: 'webhooks: offered deliveries/s', value: fmt(live.offeredPerSecond), target: '' },
      {
        figure: 'webhooks: backlog drain deliveries/s',
        value: fmt(backlog.deliveriesPerSecond),
        target: `>= ${TARGETS.deliveriesPerSecond}`,
        pass: backlog.deliveriesPerSecond >= TARGETS.deliveriesPerSecond,
      },
      { figure: 'webhooks: change→1st attempt p50 (ms)', value: fmt(live.p50Ms), target: '' },
      { figure: 'webhooks: change→1st attempt p99 (ms)', value: fmt(live.p99Ms), target: `< ${TARGETS.webhookP99Ms}`, pass: live.p99Ms < TARGETS.webhookP99Ms },
      { figure: 'webhooks: change→attempt start p99, service (ms)', value: fmt(live.serviceView.attemptStartP99Ms), target: '' },
      { figure: 'webhooks: last arrival − last change (s)', value: fmt(live.drainS, 2), target: '' },
      {
        figure: 'webhooks: (event, endpoint) pairs arrived',
        value: `${live.deliveredPairs + backlog.deliveredPairs}/${live.expectedPairs + backlog.expectedPairs}`,
        target: 'all',
        pass: live.expectedPairs > 0 && backlog.expectedPairs > 0 && live.missingPairs + backlog.missingPairs === 0,
      },
      { figure: 'webhooks: duplicates (allowed)', value: String(live.duplicates + backlog.duplicates), target: '' },
      { figure: 'webhooks: unexpected requests', value: String(unexpected), target: '0', pass: unexpected === 0 },
      { figure: 'webhooks: service max RSS (MB)', value: fmt(webhooks.rss.maxMb), target: `< ${TARGETS.rssMb}`, pass: webhooks.rss.maxMb < TARGETS.rssMb },
    );
  }
  if (books) rows.push({ figure: 'ledger trial balance', value: books.balanced ? 'balanced' : 'unbalanced', target: 'balanced', pass: books.balanced });
  if (distributed) {
    const d = distributed.authorize;
    rows.push(
      { figure: 'distributed: apps ready (s)', value: fmt(distributed.startS), target: '' },
      { figure: 'distributed: authorizations/s (2xx)', value: fmt(d.authorizationsPerSecond), target: '' },
      { figure: 'distributed: p50 / p99 latency (ms)', value: `${fmt(d.load.p50Ms, 2)} / ${fmt(d.load.p99Ms, 2)}`, target: '' },
      { figure: 'distributed: succeeded payments/s', value: fmt(d.succeededPerSecond), target: '' },
      { figure: 'distributed: succeeded (GET)', value: `${d.statuses['succeeded'] ?? 0}/${distributed.count}`, target: 'all', pass: d.statuses['succeeded'] === distributed.count },
      { figure: 'distributed: p99 (ms)', value: fmt(d.load.p99Ms, 1), target: `< ${TARGETS.distributedP99Ms}`, pass: d.load.p99Ms < TARGETS.distributedP99Ms },
      {
        figure: 'distributed: per authorization, bus round trips; Kafka messages (requests + replies; offset commits)',
        value: `${fmt(distributed.perAuthorization.roundTrips, 2)}; ${fmt(distributed.perAuthorization.requests + distributed.perAuthorization.replies, 2)}; ${fmt(distributed.perAuthorization.offsetCommits, 2)}`,
        target: '',
      },
    );
    if (authorize) {
      const ratio = d.succeededPerSecond / authorize.succeededPerSecond;
      rows.push({ figure: 'distributed ÷ all-in-one: succeeded/s', value: percent(ratio), target: `>= ${TARGETS.distributedRatio * 100} %`, pass: ratio >= TARGETS.distributedRatio });
      const cpuRatio = distributed.cpuMsPerAuthorization / authorize.cpuMsPerAuthorization;
      rows.push({
        figure: 'distributed ÷ all-in-one: CPU ms per authorization (apps, broker, PostgreSQL; machine idle)',
        value: `${fmt(distributed.cpuMsPerAuthorization, 2)} ÷ ${fmt(authorize.cpuMsPerAuthorization, 2)} = ${fmt(cpuRatio, 2)}× (idle ${fmt(100 * distributed.idle, 0)} % ÷ ${fmt(100 * authorize.idle, 0)} %)`,
        target: `<= ${TARGETS.distributedCpuRatio}×`,
        pass: cpuRatio <= TARGETS.distributedCpuRatio,
      });
    }
  }
  if (distributedScaledOut) {
    const s = distributedScaledOut;
    const name = `distributed, ${s.instances}`;
    rows.push(
      { figure: `${name}: succeeded payments/s`, value: fmt(s.authorize.succeededPerSecond), target: '' },
      { figure: `${name}: succeeded (GET)`, value: `${s.authorize.statuses['succeeded'] ?? 0}/${s.count}`, target: 'all', pass: s.authorize.statuses['succeeded'] === s.count },
    );
    if (distributed) {
      const ratio = s.authorize.succeededPerSecond / distributed.authorize.succeededPerSecond;
      rows.push({ figure: `${name} ÷ one instance each: succeeded/s`, value: percent(ratio), target: `>= ${TARGETS.distributedScaledOutRatio * 100} %`, pass: ratio >= TARGETS.distributedScaledOutRatio });
      rows.push({
        figure: `${name} ÷ one instance each: CPU ms per authorization (apps, broker, PostgreSQL)`,
        value: `${fmt(s.cpuMsPerAuthorization, 2)} ÷ ${fmt(distributed.cpuMsPerAuthorization, 2)} = ${fmt(s.cpuMsPerAuthorization / distributed.cpuMsPerAuthorization, 2)}×`,
        target: '',
      });
    }
    for (const [app, shares] of Object.entries(s.shares)) {
      const split = Object.entries(shares).map(([instance, share]) => `${instance} ${percent(share)}`).join(' / ');
      const sharing = SHARING[app as keyof typeof SHARING];
      const handling = Object.values(shares).filter((share) => share > 0).length;
      const pass = sharing === 'every instance' ? handling === Object.keys(shares).length : handling === 1;
      rows.push({ figure: `${name}: ${SHARED_TOPICS[app as keyof typeof SHARED_TOPICS].join(' and ')} handled by`, value: split, target: sharing, pass });
    }
  }
  if (stored) rows.push(...stored.rows);
  if (observability) rows.push(...observability.rows);
  return rows;
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

function selectPhases(): Set<Phase> {
  const at = process.argv.indexOf('--only');
  // The stored and console phases seed a million payments each: only when asked for.
  if (at === -1 && !process.argv.includes('--distributed')) return new Set(PHASES.filter((phase) => (phase !== 'stored' || STORED_SIZE !== undefined) && phase !== 'console'));
  const listed = at === -1 ? [] : (process.argv[at + 1] ?? '').split(',');
  if (process.argv.includes('--distributed')) listed.push('distributed');
  for (const phase of listed) if (!PHASES.includes(phase as Phase)) throw new Error(`--only takes phases among ${PHASES.join(', ')} (comma-separated), not '${phase}'`);
  const chosen = new Set(listed as Phase[]);
  // Their figures are ratios to the all-in-one authorize phase of the same run.
  if (chosen.has('webhooks') || chosen.has('baseline') || chosen.has('distributed')) chosen.add('authorize');
  return new Set(PHASES.filter((phase) => chosen.has(phase)));
}

function storedSize(): number | undefined {
  const at = process.argv.indexOf('--stored');
  if (at === -1) return undefined;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--stored takes a number of payments, not '${process.argv[at + 1] ?? ''}'`);
  return value;
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
