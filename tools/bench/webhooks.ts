import { createServer, type Server, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { cpuDelta, type CpuDelta, type CpuSnapshot } from './cpu';
import { expectCall } from './http';
import { percentile } from './load';
import { authorizeScenario, createPendingPayments, type AuthorizeResult } from './scenarios';
import { sleep } from './service';
import type { Fixture } from './setup';

/** What the receiver keeps of one (payment, endpoint) pair: small, whatever the number of requests. */
interface Pair {
  eventId: string;
  /** Arrivals of this pair at this endpoint: 1 is right, more are duplicates. */
  arrivals: number;
}

/**
 * The integrator's endpoints, as a real HTTP server on loopback in the bench process: every request
 * is answered 200 at once; per request it keeps only the arrival time (for the rate), the latency of
 * the pair's first arrival (arrival − `data.succeeded_at`) and a count per (payment, endpoint) pair.
 * Each endpoint is a path, `/hooks/<index>`, on the same server.
 */
export class WebhookReceiver {
  /** Date.now() of every arrival, in order. */
  readonly arrivals: number[] = [];
  /** arrival − data.succeeded_at (ms), for the first arrival of each (payment, endpoint) pair. */
  readonly firstLatenciesMs: number[] = [];
  /** Per payment id, one slot per endpoint. */
  readonly pairs = new Map<string, (Pair | undefined)[]>();
  /** Requests that were not a payment.succeeded to a known path, by reason. */
  readonly other: Record<string, number> = {};
  /** Same payment delivered under two different event ids (should never happen: one event per status change). */
  eventIdMismatches = 0;
  /** The latest `data.succeeded_at` seen (ms): the last state change that was delivered. */
  lastChangeAt = Number.NaN;
  /** While set, requests are recorded but not answered (the backlog measurement). */
  private held: ServerResponse[] | undefined;
  /** Requests held, by path: the service's attempts in flight per endpoint when released. */
  readonly heldByPath: Record<string, number> = {};
  private server: Server | undefined;
  private baseUrl = '';

  constructor(private readonly endpointCount: number) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        if (this.held) {
          this.held.push(response);
          this.heldByPath[request.url ?? ''] = (this.heldByPath[request.url ?? ''] ?? 0) + 1;
        }
        else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        this.record(request.url ?? '', Buffer.concat(chunks).toString('utf8'), at);
      });
    });
    // The service keeps connections alive per origin, at most half the announced keep-alive timeout.
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    this.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this;
  }

  /** From now on, requests are not answered: the service's per-endpoint slots fill, the rest waits in its table. */
  hold(): void {
    this.held ??= [];
  }

  /** Answers the held requests and every one after at once; returns the time of release. */
  release(): number {
    const held = this.held ?? [];
    this.held = undefined;
    for (const response of held) response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return Date.now();
  }

  endpointUrl(index: number): string {
    return `${this.baseUrl}/hooks/${index}`;
  }

  /** (payment, endpoint) pairs that arrived at least once. */
  get distinctPairs(): number {
    return this.firstLatenciesMs.length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((done) => (this.server ? this.server.close(done) : done(undefined)));
  }

  private record(path: string, body: string, at: number): void {
    this.arrivals.push(at);
    const match = /^\/hooks\/(\d+)$/.exec(path);
    const endpoint = match ? Number(match[1]) : -1;
    if (endpoint < 0 || endpoint >= this.endpointCount) return this.count('unknown path');
    let event: { id?: unknown; type?: unknown; data?: { id?: unknown; succeeded_at?: unknown } };
    try {
      event = JSON.parse(body) as typeof event;
    } catch {
      return this.count('not JSON');
    }
    if (event.type !== 'payment.succeeded') return this.count(`type ${String(event.type)}`);
    const paymentId = event.data?.id;
    const succeededAt = typeof event.data?.succeeded_at === 'string' ? Date.parse(event.data.succeeded_at) : Number.NaN;
    if (typeof paymentId !== 'string' || typeof event.id !== 'string' || !Number.isFinite(succeededAt)) return this.count('payment.succeeded without id or succeeded_at');
    let slots = this.pairs.get(paymentId);
    if (!slots) this.pairs.set(paymentId, (slots = new Array<Pair | undefined>(this.endpointCount)));
    const pair = slots[endpoint];
    if (pair) {
      pair.arrivals++;
      if (pair.eventId !== event.id) this.eventIdMismatches++;
      return;
    }
    if (slots.some((other) => other && other.eventId !== event.id)) this.eventIdMismatches++;
    slots[endpoint] = { eventId: event.id, arrivals: 1 };
    if (!(succeededAt <= this.lastChangeAt)) this.lastChangeAt = succeededAt;
    this.firstLatenciesMs.push(at - succeededAt);
  }

  private count(reason: string): void {
    this.other[reason] = (this.other[reason] ?? 0) + 1;
  }
}

export interface WebhookBatchResult<S = unknown> {
  endpoints: number;
  authorize: AuthorizeResult;
  /** Payments read back `succeeded`: each one's payment.succeeded is expected at every endpoint. */
  succeededPayments: number;
  expectedPairs: number;
  deliveredPairs: number;
  missingPairs: number;
  /** Arrivals beyond the first of a pair. */
  duplicates: number;
  /** Requests that were not an expected payment.succeeded (other types, unknown payments, bad bodies). */
  unexpected: number;
  eventIdMismatches: number;
  arrivals: number;
  /**
   * Live: receiver arrivals over the window from the first to the last one. Backlog: arrivals after
   * the release over the window from the release to the last one.
   */
  deliveriesPerSecond: number;
  windowS: number;
  /** Last arrival − the last delivered state change (`data.succeeded_at`), in seconds: how long the queue took to drain. */
  drainS: number;
  /** Deliveries the authorizations asked for per second: K × succeeded authorizations / load duration. */
  offeredPerSecond: number;
  /** First arrival of each pair − `data.succeeded_at` (meaningful for the live batch only). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The bench process's own event-loop delay during the batch: a bound on how late it stamped arrivals. */
  benchLoopDelayP99Ms: number;
  /** Not all pairs arrived before the wait gave up. */
  timedOut: boolean;
  /** The service's own view of the deliveries, from its tables: lines for the log, and `attempted_at` − `data.succeeded_at`. */
  serviceView: { lines: string[]; attemptStartP50Ms: number; attemptStartP99Ms: number };
  /** Taken once the deliveries arrived, before the bench reads the service's tables. */
  statsAfterWait: S;
  /** Live: where the CPU went while the authorizations ran (their deliveries keep up with them). */
  cpu: CpuDelta | undefined;
}

export interface WebhookBatchOptions {
  endpoints: number;
  count: number;
  connections: number;
  pendingConcurrency: number;
  idleTimeoutMs: number;
  maxWaitMs: number;
  /**
   * Hold every request unanswered while the payments are authorized, then answer them all and every
   * later one at once: the service then only drains its queue, which measures the dispatcher's own
   * throughput rather than the rate at which the authorizations produce events.
   */
  backlog: boolean;
  /** A CPU snapshot, taken as the authorizations start and end (live batch only). */
  cpu?: () => CpuSnapshot;
}

/**
 * One batch of the webhooks phase: a receiver of its own, `endpoints` endpoints registered for the
 * integrator (`enabled_events: ["*"]`), so that every payment.succeeded fans out to that many
 * deliveries; `count` payments created (untimed), then authorized at full speed as in the authorize
 * scenario; then the receiver is waited on until every (payment, endpoint) pair arrived, or nothing
 * arrived for `idleTimeoutMs` (a failed attempt is retried about 5 s later), or `maxWaitMs` passed.
 * The endpoints are deleted at the end, so that a later batch's events go to its own receiver only.
 */
export async function webhookBatch<S>(
  fixture: Fixture,
  databaseUrl: string,
  options: WebhookBatchOptions,
  snapshot: () => Promise<S>,
  log: (message: string) => void,
): Promise<WebhookBatchResult<S>> {
  const name = options.backlog ? 'webhooks backlog' : 'webhooks live';
  const receiver = await new WebhookReceiver(options.endpoints).start();
  const endpointIds: string[] = [];
  try {
    log(`${name}: creating ${options.count} pending payments (untimed)`);
    const paymentIds = await createPendingPayments(fixture, options.count, options.pendingConcurrency);
    for (let i = 0; i < options.endpoints; i++) {
      const { body } = await expectCall(fixture.baseUrl, 'POST', '/v1/webhook_endpoints', 201, {
        key: fixture.apiKey,
        headers: { 'Idempotency-Key': randomUUID() },
        body: { url: receiver.endpointUrl(i), enabled_events: ['*'] },
      });
      endpointIds.push(body.id as string);
    }
    if (options.backlog) receiver.hold();
    log(
      `${name}: ${options.endpoints} endpoints registered on ${receiver.endpointUrl(0).replace(/\/0$/, '/<n>')}; ` +
        `authorizing at full speed over ${options.connections} connections${options.backlog ? ', requests held unanswered' : ''}`,
    );

    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const measureCpu = options.backlog ? undefined : options.cpu;
    const cpuBefore = measureCpu?.();
    const authorize = await authorizeScenario(fixture, paymentIds, options.connections, async () => measureCpu?.());
    // The attempts held are within their 15 s budget: authorizing and reading back a batch takes a few seconds.
    const releasedAt = options.backlog ? receiver.release() : Number.NaN;
    const arrivedBeforeRelease = receiver.arrivals.length;
    const succeeded = new Set<string>();
    for (const [id, status] of authorize.statusById) if (status === 'succeeded') succeeded.add(id);
    const expectedPairs = succeeded.size * options.endpoints;
    log(
      `${name}: ${authorize.load.ok} authorizations 2xx in ${authorize.load.durationS.toFixed(1)} s; ${succeeded.size} succeeded; ` +
        `${options.backlog ? `released ${arrivedBeforeRelease} held requests ${JSON.stringify(receiver.heldByPath)}; ` : ''}waiting for ${expectedPairs} deliveries`,
    );

    const waitStarted = Date.now();
    let timedOut = false;
    let lastCount = -1;
    let lastProgress = Date.now();
    while (receiver.distinctPairs < expectedPairs) {
      if (receiver.arrivals.length !== lastCount) {
        lastCount = receiver.arrivals.length;
        lastProgress = Date.now();
      }
      if (Date.now() - lastProgress > options.idleTimeoutMs || Date.now() - waitStarted > options.maxWaitMs) {
        timedOut = true;
        break;
      }
      await sleep(100);
    }
    // A short grace for duplicates sent right behind the last first arrival.
    await sleep(1_000);
    loopDelay.disable();
    const statsAfterWait = await snapshot();

    let delivered = 0;
    let duplicates = 0;
    let unknown = 0;
    for (const [paymentId, slots] of receiver.pairs) {
      const known = succeeded.has(paymentId);
      for (const pair of slots) {
        if (!pair) continue;
        if (!known) {
          unknown += pair.arrivals;
          continue;
        }
        delivered++;
        duplicates += pair.arrivals - 1;
      }
    }
    const arrivals = receiver.arrivals;
    const last = arrivals[arrivals.length - 1] ?? Number.NaN;
    const windowStart = options.backlog ? releasedAt : (arrivals[0] ?? Number.NaN);
    const counted = options.backlog ? arrivals.length - arrivedBeforeRelease : arrivals.length - 1;
    const windowS = (last - windowStart) / 1000;
    const latencies = [...receiver.firstLatenciesMs].sort((a, b) => a - b);
    if (Object.keys(receiver.other).length > 0) log(`${name}: unexpected requests ${JSON.stringify(receiver.other)}`);
    return {
      endpoints: options.endpoints,
      authorize,
      succeededPayments: succeeded.size,
      expectedPairs,
      deliveredPairs: delivered,
      missingPairs: expectedPairs - delivered,
      duplicates,
      unexpected: unknown + Object.values(receiver.other).reduce((sum, n) => sum + n, 0),
      eventIdMismatches: receiver.eventIdMismatches,
      arrivals: arrivals.length,
      deliveriesPerSecond: counted > 0 && windowS > 0 ? counted / windowS : Number.NaN,
      windowS,
      drainS: (last - receiver.lastChangeAt) / 1000,
      offeredPerSecond: (succeeded.size * options.endpoints) / authorize.load.durationS,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies[latencies.length - 1] ?? Number.NaN,
      benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      timedOut,
      serviceView: await serviceView(databaseUrl, endpointIds),
      statsAfterWait,
      cpu: cpuBefore && authorize.statsAfterLoad ? cpuDelta(cpuBefore, authorize.statsAfterLoad) : undefined,
    };
  } finally {
    receiver.release();
    for (const id of endpointIds) {
      await expectCall(fixture.baseUrl, 'DELETE', `/v1/webhook_endpoints/${id}`, 200, { key: fixture.apiKey }).catch((error: unknown) => log(`${name}: ${String(error)}`));
    }
    await receiver.stop();
  }
}

/**
 * The same deliveries as the service recorded them, read from its tables: statuses and attempts, and
 * where the time went between the state change (`data.succeeded_at`), the delivery row (`created_at`,
 * written with the event, on the service clock) and the first attempt's start (`attempted_at`).
 */
async function serviceView(databaseUrl: string, endpointIds: string[]): Promise<{ lines: string[]; attemptStartP50Ms: number; attemptStartP99Ms: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const statuses = await client.query<{ status: string; deliveries: string; attempts: string; multi: string }>(
      `SELECT status, count(*) AS deliveries, sum(attempts) AS attempts, count(*) FILTER (WHERE attempts > 1) AS multi
       FROM wh_deliveries WHERE endpoint_id = ANY ($1::text[]) GROUP BY status ORDER BY status`,
      [endpointIds],
    );
    const failures = await client.query<{ error: string | null; status_code: number | null; n: string }>(
      `SELECT a.error, a.status_code, count(*) AS n FROM wh_attempts a JOIN wh_deliveries d ON d.id = a.delivery_id
       WHERE d.endpoint_id = ANY ($1::text[]) AND (a.status_code IS NULL OR a.status_code NOT BETWEEN 200 AND 299)
       GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5`,
      [endpointIds],
    );
    const stages = await client.query<Record<string, number | null>>(
      `WITH firsts AS (
         SELECT DISTINCT ON (d.id) d.created_at, a.attempted_at, a.latency_ms, (ev.body::json -> 'data' ->> 'succeeded_at')::timestamptz AS changed_at
         FROM wh_deliveries d JOIN wh_events ev ON ev.id = d.event_id JOIN wh_attempts a ON a.delivery_id = d.id
         WHERE d.endpoint_id = ANY ($1::text[]) AND ev.type = 'payment.succeeded'
         ORDER BY d.id, a.id)
       SELECT
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - changed_at) * 1000) AS record_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - changed_at) * 1000) AS record_p99,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - created_at) * 1000) AS queue_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - created_at) * 1000) AS queue_p99,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - changed_at) * 1000) AS start_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - changed_at) * 1000) AS start_p99,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS send_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS send_p99
       FROM firsts`,
      [endpointIds],
    );
    const s = stages.rows[0] ?? {};
    const ms = (key: string) => (s[key] === null || s[key] === undefined ? 'n/a' : Number(s[key]).toFixed(1));
    const lines = [
      `deliveries by status: ${statuses.rows.map((r) => `${r.status} ${r.deliveries} (attempts ${r.attempts}, ${r.multi} with more than one)`).join('; ') || 'none'}`,
      `failed attempts: ${failures.rows.map((r) => `${r.n} × ${r.status_code ?? r.error}`).join('; ') || 'none'}`,
      `state change → delivery row p50 ${ms('record_p50')} ms, p99 ${ms('record_p99')} ms; delivery row → first attempt p50 ${ms('queue_p50')} ms, p99 ${ms('queue_p99')} ms; ` +
        `attempt (service-measured) p50 ${ms('send_p50')} ms, p99 ${ms('send_p99')} ms; state change → first attempt's start p50 ${ms('start_p50')} ms, p99 ${ms('start_p99')} ms`,
    ];
    return { lines, attemptStartP50Ms: Number(s['start_p50'] ?? Number.NaN), attemptStartP99Ms: Number(s['start_p99'] ?? Number.NaN) };
  } finally {
    await client.end();
  }
}
