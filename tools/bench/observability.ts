import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { ensureDatabase } from '@pay/platform';
import { mergeLoads, type LoadResult } from './load';
import { fmt, type Row } from './report';
import { authorizeScenario, createPendingPayments } from './scenarios';
import { sleep, spawnService, type ServiceProcess } from './service';
import { setUp, type Fixture } from './setup';

/**
 * The cost of logging, metrics and tracing: the authorize scenario against two all-in-one services
 * side by side, one with observability off (LOG_LEVEL=silent, no scrape, no OTLP endpoint) and one
 * with it on (LOG_LEVEL=info read by the bench like a log shipper, /metrics scraped, spans exported
 * to a sink in this process). Both run at once on their own databases, and are loaded in turns
 * (off, on, then on, off, …) so that a change in the machine's load meanwhile falls on both.
 */
export interface ObservabilityOptions {
  /** Measured batches per side; the order alternates every round. */
  rounds: number;
  /** Authorizations per batch. */
  batch: number;
  /** Unrecorded, per side, before the rounds: JIT and caches. */
  warmUp: number;
  connections: number;
  pendingConcurrency: number;
  customers: number;
}

/** Prometheus scrapes every 15 s by default; every second overstates the cost of metrics, on purpose. */
const SCRAPE_EVERY_MS = 1_000;
/** Spans exported every second rather than the SDK's default 5 s: more, smaller exports, again on the costly side. */
const EXPORT_EVERY_MS = '1000';
export const OVERHEAD_TARGET = 0.1;

interface Side {
  name: 'off' | 'on';
  service: ServiceProcess;
  fixture: Fixture;
  pending: string[];
  /** The measured batches' loads, taken as one run (mergeLoads) in the report. */
  loads: LoadResult[];
  succeeded: number;
  scrapes: number;
}

export interface ObservabilityResult {
  rows: Row[];
  overhead: number;
}

export async function observabilityPhase(
  postgresUrl: (name: string) => string,
  root: string,
  options: ObservabilityOptions,
  cleanups: (() => Promise<unknown>)[],
  log: (line: string) => void,
): Promise<ObservabilityResult> {
  const sink = await startOtlpSink();
  cleanups.push(() => sink.stop());
  const sides: Side[] = [];
  for (const [name, env] of [
    ['off', { LOG_LEVEL: 'silent', OTEL_EXPORTER_OTLP_ENDPOINT: '' }],
    ['on', { LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: EXPORT_EVERY_MS }],
  ] as const) {
    const databaseUrl = postgresUrl(`bench_observability_${name}`);
    await ensureDatabase(databaseUrl);
    const service = await spawnService({ databaseUrl, dataDir: join(root, `observability-${name}`), env });
    cleanups.push(() => service.stop());
    const perSide = options.warmUp + options.rounds * options.batch;
    const fixture = await setUp(service.url, service.adminKey, options.customers, Math.ceil(perSide / options.customers));
    const pending = await createPendingPayments(fixture, perSide, options.pendingConcurrency);
    log(`observability ${name}: service pid ${service.pid} (${JSON.stringify(env)}), ${pending.length} pending payments`);
    sides.push({ name, service, fixture, pending, loads: [], succeeded: 0, scrapes: 0 });
  }

  for (const side of sides) await authorizeBatch(side, side.pending.splice(0, options.warmUp), options.connections);
  for (const side of sides) Object.assign(side, { loads: [], succeeded: 0, scrapes: 0 });
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const stats = await authorizeBatch(side, side.pending.splice(0, options.batch), options.connections);
      log(`observability ${side.name}, round ${round + 1}: ${fmt(stats.perSecond)} authorizations/s, p99 ${fmt(stats.p99Ms, 2)} ms`);
    }
  }
  log(`observability: the OTLP sink received ${sink.requests()} exports, ${fmt(sink.bytes() / 1e6, 2)} MB`);
  return report(sides[0]!, sides[1]!, options.rounds * options.batch, sink.requests());
}

/** One batch at full speed; the side with observability on is scraped meanwhile. */
async function authorizeBatch(side: Side, paymentIds: string[], connections: number): Promise<{ perSecond: number; p99Ms: number }> {
  const scraper = side.name === 'on' ? startScraper(side) : undefined;
  try {
    const result = await authorizeScenario(side.fixture, paymentIds, connections, async () => undefined);
    side.loads.push(result.load);
    side.succeeded += result.statuses['succeeded'] ?? 0;
    return { perSecond: result.authorizationsPerSecond, p99Ms: result.load.p99Ms };
  } finally {
    await scraper?.stop();
  }
}

function startScraper(side: Side): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const response = await fetch(`${side.service.url}/metrics`);
      await response.text();
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
      side.scrapes++;
      await sleep(SCRAPE_EVERY_MS);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

function report(off: Side, on: Side, measured: number, exports: number): ObservabilityResult {
  const [offLoad, onLoad] = [mergeLoads(off.loads), mergeLoads(on.loads)];
  const perSecond = (load: LoadResult) => load.ok / load.durationS;
  const overhead = 1 - perSecond(onLoad) / perSecond(offLoad);
  const p99Increase = onLoad.p99Ms / offLoad.p99Ms - 1;
  const rows: Row[] = [
    { figure: 'observability off: authorizations/s', value: fmt(perSecond(offLoad)), target: '' },
    { figure: 'observability off: p99 latency (ms)', value: fmt(offLoad.p99Ms, 2), target: '' },
    { figure: 'observability on: authorizations/s', value: fmt(perSecond(onLoad)), target: '' },
    { figure: 'observability on: p99 latency (ms)', value: fmt(onLoad.p99Ms, 2), target: '' },
    { figure: 'observability: throughput overhead', value: `${fmt(overhead * 100)} %`, target: `< ${OVERHEAD_TARGET * 100} %`, pass: overhead < OVERHEAD_TARGET },
    { figure: 'observability: p99 increase', value: `${fmt(p99Increase * 100)} %`, target: '' },
    {
      figure: 'observability: succeeded (GET), off + on',
      value: `${off.succeeded + on.succeeded}/${2 * measured}`,
      target: 'all',
      pass: off.succeeded === measured && on.succeeded === measured,
    },
    { figure: 'observability on: scrapes; span exports', value: `${on.scrapes}; ${exports}`, target: '> 0 each', pass: on.scrapes > 0 && exports > 0 },
  ];
  return { rows, overhead };
}

/** Accepts OTLP/HTTP exports and discards them, counting requests and bytes (proof that spans were sent). */
async function startOtlpSink(): Promise<{ url: string; requests(): number; bytes(): number; stop(): Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests: () => requests,
    bytes: () => bytes,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
