import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { METRIC_CHILDREN_CACHED_MAX, SCRAPE_SOURCE_TIMEOUT_MS, WEBHOOK_DUE_COUNT_MAX } from '@pay/kernel';

/**
 * Every metric family of the service, in one place (docs/operations.md lists them with their meaning).
 * Counters and histograms are process-wide and recorded where the work happens; the PostgreSQL-derived
 * gauges are read when Prometheus scrapes (collectOnScrape), never on a timer.
 */
export const metricsRegistry = new Registry();
const registers = [metricsRegistry];

/** Seconds: from a fast cached read (a few ms) to the 30 s request timeout. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: an in-process call takes well under a millisecond, a Kafka round trip a few; requests time out at 10 s. */
const BUS_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequestsTotal = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by route pattern (unmatched for no route), method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  registers,
});

export const httpRequestDurationSeconds = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to sending its response, by route pattern and method.',
  labelNames: ['route', 'method'] as const,
  buckets: HTTP_DURATION_BUCKETS,
  registers,
});

const children = new WeakMap<object, Map<string, unknown>>();

/**
 * The labelled child of a counter or histogram, remembered by its label values: `inc`/`observe` with a
 * labels object hashes and checks the labels on every call, a hot path's request does it once per set.
 */
export function child<T extends string>(metric: Counter<T>, ...values: string[]): Counter.Internal;
export function child<T extends string>(metric: Histogram<T>, ...values: string[]): Histogram.Internal<T>;
export function child<T extends string>(metric: Counter<T> | Histogram<T>, ...values: string[]): Counter.Internal | Histogram.Internal<T> {
  let known = children.get(metric) as Map<string, Counter.Internal | Histogram.Internal<T>> | undefined;
  if (!known) children.set(metric, (known = new Map()));
  const key = values.join('\u0000');
  let found = known.get(key);
  if (found === undefined) {
    if (known.size >= METRIC_CHILDREN_CACHED_MAX) known.clear();
    found = metric.labels(...values);
    known.set(key, found);
  }
  return found;
}

export const LEDGER_TRANSFER_OUTCOMES = ['applied', 'rejected', 'duplicate'] as const;
export type LedgerTransferOutcome = (typeof LEDGER_TRANSFER_OUTCOMES)[number];
export const ledgerTransfersTotal = new Counter({
  name: 'ledger_transfers_total',
  help: 'Ledger transfers committed: applied (money moved), rejected (insufficient balance, nothing moved), duplicate (an operation id seen before, answered with its first outcome).',
  labelNames: ['outcome'] as const,
  registers,
});

export const eventStoreAppendsTotal = new Counter({
  name: 'event_store_appends_total',
  help: 'Commands whose events were appended to their stream.',
  registers,
});

export const eventStoreAppendConflictsTotal = new Counter({
  name: 'event_store_append_conflicts_total',
  help: 'Appends refused because another writer moved the stream first (the command is then decided again).',
  registers,
});

export const WEBHOOK_ATTEMPT_OUTCOMES = ['succeeded', 'retry_scheduled', 'gave_up'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];
export const webhookDeliveryAttemptsTotal = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts: succeeded (2xx), retry_scheduled (failed, tried again later), gave_up (failed, no attempt left).',
  labelNames: ['outcome'] as const,
  registers,
});

// The two webhook gauges are read from PostgreSQL on scrape, and exposed only by a process that runs
// the webhooks app (registered with its scrape source): a gauge elsewhere would say 0, not "unknown".
export const webhookDeliveriesDue = new Gauge({
  name: 'webhook_deliveries_due',
  help: `Webhook deliveries whose next attempt is due now on the service clock and not yet claimed (counted up to ${WEBHOOK_DUE_COUNT_MAX}).`,
  registers: [],
});

export const webhookOldestDueDeliveryAgeSeconds = new Gauge({
  name: 'webhook_oldest_due_delivery_age_seconds',
  help: 'How long the oldest due webhook delivery has been waiting for its attempt (0 when none is due).',
  registers: [],
});

export const busRequestDurationSeconds = new Histogram({
  name: 'bus_request_duration_seconds',
  help: 'Time from sending a bus request to its reply (or error), seen by the caller, by request topic.',
  labelNames: ['topic'] as const,
  buckets: BUS_DURATION_BUCKETS,
  registers,
});

export const busMessagesHandledTotal = new Counter({
  name: 'bus_messages_handled_total',
  help: 'Bus requests handled by this process, by request topic and outcome (ok or the error code answered): how instances of an app share its work.',
  labelNames: ['topic', 'outcome'] as const,
  registers,
});

export const busRequestTimeoutsTotal = new Counter({
  name: 'bus_request_timeouts_total',
  help: 'Bus requests that got no reply within their deadline (answered service_unavailable), by request topic.',
  labelNames: ['topic'] as const,
  registers,
});

/** Each running subscription's lag, read when scraped: see trackSubscriptionLag. */
const subscriptionLags = new Map<string, () => number>();
new Gauge({
  name: 'event_store_subscription_lag_seconds',
  help: 'Per subscription (its checkpoint id): seconds since it last had handled every event visible to it; stays near the poll interval while it keeps up.',
  labelNames: ['subscription'] as const,
  registers,
  collect() {
    this.reset();
    for (const [subscription, lagSeconds] of subscriptionLags) this.set({ subscription }, lagSeconds());
  },
});

// Outcomes start at 0, so a rate over them exists before the first of each.
for (const outcome of LEDGER_TRANSFER_OUTCOMES) ledgerTransfersTotal.inc({ outcome }, 0);
for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) webhookDeliveryAttemptsTotal.inc({ outcome }, 0);

/** Recording a metric never throws into the work it measures (a bad label is not worth a failed request). */
export function record(update: () => void): void {
  try {
    update();
  } catch {
    /* the measurement is lost, the work goes on */
  }
}

/** Reports a subscription's lag in seconds on every scrape until the returned function is called. */
export function trackSubscriptionLag(subscriptionId: string, lagSeconds: () => number): () => void {
  subscriptionLags.set(subscriptionId, lagSeconds);
  return () => {
    if (subscriptionLags.get(subscriptionId) === lagSeconds) subscriptionLags.delete(subscriptionId);
  };
}

export interface SubscriptionLag {
  subscription: string;
  lagSeconds: number;
}

/** The lag of every running subscription now, by name (what /ready compares with its bound); an unreadable lag is left out. */
export function currentSubscriptionLags(): SubscriptionLag[] {
  const lags: SubscriptionLag[] = [];
  for (const [subscription, lagSeconds] of subscriptionLags) {
    try {
      const value = lagSeconds();
      if (Number.isFinite(value)) lags.push({ subscription, lagSeconds: value });
    } catch {
      /* a broken reader says nothing about the subscription itself */
    }
  }
  return lags.sort((a, b) => a.subscription.localeCompare(b.subscription));
}

/** Reads gauges from PostgreSQL before each scrape; the source marks its gauges unknown (NaN) first, so a failed read never reports a stale value. */
export type ScrapeSource = () => Promise<void>;
const scrapeSources = new Map<string, ScrapeSource>();

/**
 * Runs `source` before every scrape, and exposes `gauges` (the ones it sets), until the returned
 * function is called. A later source of the same name replaces it.
 */
export function collectOnScrape(name: string, source: ScrapeSource, gauges: Metric[] = []): () => void {
  scrapeSources.set(name, source);
  for (const gauge of gauges) if (!metricsRegistry.getSingleMetric(nameOf(gauge))) metricsRegistry.registerMetric(gauge);
  return () => {
    if (scrapeSources.get(name) !== source) return;
    scrapeSources.delete(name);
    for (const gauge of gauges) metricsRegistry.removeSingleMetric(nameOf(gauge));
  };
}

/** prom-client's types leave out the name every metric carries. */
const nameOf = (metric: Metric): string => (metric as unknown as { name: string }).name;

let processMetricsEnabled = false;

/** prom-client's default process and Node.js metrics (CPU, memory, event loop lag, GC, handles), once per process. */
export function enableProcessMetrics(): void {
  if (processMetricsEnabled) return;
  processMetricsEnabled = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** The Prometheus text exposition of every family, after the scrape-time sources have run (each bounded in time). */
export async function renderMetrics(onSourceError: (name: string, error: unknown) => void = () => undefined): Promise<string> {
  await Promise.all(
    [...scrapeSources].map(async ([name, source]) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} took longer than ${SCRAPE_SOURCE_TIMEOUT_MS} ms`)), SCRAPE_SOURCE_TIMEOUT_MS);
      });
      try {
        await Promise.race([source(), late]);
      } catch (error) {
        onSourceError(name, error);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return metricsRegistry.metrics();
}
