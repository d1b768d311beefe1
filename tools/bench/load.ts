import autocannon, { type Instance, type Options } from 'autocannon';
import { sleep } from './service';

export interface LoadResult {
  /**
   * From the first instance's start to the last response, in seconds. Not to autocannon's callback:
   * it notices the end of a run (its `amount` reached) only at its next one-second sample tick, so
   * its end adds up to a second of idle time (a run of 10.1 s measured 11.0).
   */
  durationS: number;
  /** Sum over instances of its responses / its own duration: staggered starts do not dilute it. */
  perSecond: number;
  completed: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCounts: Record<number, number>;
  p50Ms: number;
  p99Ms: number;
  /** Every response time, sorted: to merge runs (mergeLoads: the observability and distributed phases' batches) before taking percentiles. */
  latenciesMs: readonly number[];
}

/** Instances still running, so that an interrupted run can stop them. */
const running = new Set<Instance>();
export const stopAllLoad = (): void => running.forEach((instance) => instance.stop());

/**
 * Runs `instances` autocannon instances, each started `staggerMs` after the previous one, and merges
 * them. Latencies are taken from every response event, not from autocannon's histogram: that one
 * rounds to whole milliseconds (too coarse against a 10 ms target), and with a fixed rate its
 * coordinated-omission correction uses an expected interval of ceil(1/rate) = 1 ms, which adds
 * synthetic samples for every response over 1 ms.
 */
export async function runLoad(options: Options, { instances = 1, staggerMs = 0, hardLimitMs }: { instances?: number; staggerMs?: number; hardLimitMs?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<number, number> = {};
  let errors = 0;
  const started = performance.now();
  let lastResponseAt = started;
  const runs: Promise<{ timeouts: number; perSecond: number }>[] = [];
  for (let i = 0; i < instances; i++) {
    if (i > 0 && staggerMs > 0) await sleep(staggerMs);
    runs.push(
      new Promise((done, fail) => {
        let responses = 0;
        const instanceStarted = performance.now();
        let instanceLastResponseAt = instanceStarted;
        // autocannon refuses ignoreCoordinatedOmission without a rate; a bad option calls back synchronously.
        const paced = options.connectionRate !== undefined || options.overallRate !== undefined;
        let instance: Instance | undefined = undefined;
        instance = autocannon({ ...(paced ? { ignoreCoordinatedOmission: true } : {}), timeout: 10, ...options }, (error, result) => {
          if (instance) running.delete(instance);
          if (error) fail(error);
          else done({ timeouts: result.timeouts, perSecond: responses / ((instanceLastResponseAt - instanceStarted) / 1000 || Infinity) });
        });
        running.add(instance);
        instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
          responses++;
          instanceLastResponseAt = lastResponseAt = performance.now();
          latencies.push(responseTimeMs);
          statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
        });
        instance.on('reqError', () => errors++);
        if (hardLimitMs) setTimeout(() => instance?.stop(), hardLimitMs).unref();
      }),
    );
  }
  const results = await Promise.all(runs);
  const durationS = ((latencies.length > 0 ? lastResponseAt : performance.now()) - started) / 1000;
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statusCounts).reduce((sum, [status, count]) => (Number(status) >= 200 && Number(status) < 300 ? sum + count : sum), 0);
  return {
    durationS,
    perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
    completed: latencies.length,
    ok,
    non2xx: latencies.length - ok,
    errors,
    timeouts: results.reduce((sum, r) => sum + r.timeouts, 0),
    statusCounts,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
  };
}

/** Runs one after another taken as one: their durations, counts and latencies together. */
export function mergeLoads(runs: readonly LoadResult[]): LoadResult {
  const latencies = runs.flatMap((run) => run.latenciesMs).sort((a, b) => a - b);
  const statusCounts: Record<number, number> = {};
  for (const run of runs) for (const [status, count] of Object.entries(run.statusCounts)) statusCounts[Number(status)] = (statusCounts[Number(status)] ?? 0) + count;
  const sum = (field: 'durationS' | 'completed' | 'ok' | 'non2xx' | 'errors' | 'timeouts') => runs.reduce((total, run) => total + run[field], 0);
  const durationS = sum('durationS');
  return {
    durationS,
    perSecond: latencies.length / durationS,
    completed: sum('completed'),
    ok: sum('ok'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    statusCounts,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
  };
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
