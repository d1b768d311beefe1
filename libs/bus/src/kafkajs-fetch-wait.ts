/**
 * kafkajs 2.2.4 heartbeats only between fetches, and a fetch on idle partitions waits up to its
 * maxWaitTime (KAFKA_CONSUMER_MAX_WAIT_MS, 2 s) on Apache Kafka. Two waits follow from that:
 *
 * - a member hears of a rebalance (a member joining or leaving its group) only once its idle fetch
 *   ends, up to a wait late, and the whole group waits for its last member to rejoin;
 * - a member that stops (consumer.disconnect) sends its LeaveGroup only once its fetch ends: its
 *   partitions stay its own until then, and the others hear of its leaving a wait later still.
 *
 * A rolling restart pays both twice per group and per instance replaced. The replacement below keeps
 * a runner's fetches as they are and adds, while one waits: a heartbeat on the group's interval (on the
 * coordinator's connection, not the fetch's); when it answers that the group rebalances, the waiting
 * fetches end with that error, so the runner rejoins at once, as it does when its own heartbeat after
 * a fetch answers so; and a stop ends the waiting fetches with nothing fetched, so that LeaveGroup
 * leaves at once. A fetch given up this way is left to finish on its connection: its messages are
 * dropped unread (their offsets were not resolved, so they are fetched again).
 */

/** The release whose Runner this replaces methods of; another version must be looked at again. */
export const KAFKAJS_VERSION_FETCH_WAIT = '2.2.4';

interface Waiting {
  resolve(batches: unknown[]): void;
  reject(error: unknown): void;
}

interface RunnerInternals {
  running: boolean;
  heartbeatInterval: number;
  heartbeat(): Promise<void>;
  fetch(nodeId: number): Promise<unknown[]>;
  stop(): Promise<void>;
  /** The fetches waiting now, and the timer that heartbeats while there are any (added here). */
  [WAITING]?: Set<Waiting>;
  [BEAT]?: NodeJS.Timeout;
}

const WAITING = Symbol('kafkajs-fetch-wait:waiting');
const BEAT = Symbol('kafkajs-fetch-wait:beat');

let applied = false;

/**
 * Replaces Runner.fetch and Runner.stop in the kafkajs this process loaded, once (Nest's Kafka
 * transport requires the same module). Does nothing for a kafkajs other than KAFKAJS_VERSION_FETCH_WAIT:
 * its test fails then, so that an upgrade looks at it again.
 */
export function endKafkajsFetchWaitOnRebalance(): void {
  if (applied) return;
  applied = true;
  // Internal modules of kafkajs, not typed; the version pin above is what makes reaching them safe.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION_FETCH_WAIT) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Runner = require('kafkajs/src/consumer/runner') as { prototype: RunnerInternals };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { isRebalancing } = require('kafkajs/src/errors') as { isRebalancing(error: unknown): boolean };
  const fetch = Runner.prototype.fetch;
  const stop = Runner.prototype.stop;

  /** Ends every waiting fetch of `runner`: with `error`, or with nothing fetched. */
  const endWaits = (runner: RunnerInternals, error?: unknown): void => {
    const waiting = runner[WAITING];
    if (!waiting) return;
    for (const wait of waiting) {
      if (error === undefined) wait.resolve([]);
      else wait.reject(error);
    }
    waiting.clear();
    clearInterval(runner[BEAT]);
    runner[BEAT] = undefined;
  };

  Runner.prototype.fetch = function fetchUntilRebalance(this: RunnerInternals, nodeId: number): Promise<unknown[]> {
    if (!this.running) return fetch.call(this, nodeId);
    const waiting = (this[WAITING] ??= new Set());
    let wait!: Waiting;
    const ended = new Promise<unknown[]>((resolve, reject) => (wait = { resolve, reject }));
    waiting.add(wait);
    // kafkajs sends a heartbeat only once its interval has passed since the last request to the
    // coordinator (and shares one in flight), so this adds none while fetches return often.
    this[BEAT] ??= setInterval(() => {
      this.heartbeat().catch((error: unknown) => {
        if (isRebalancing(error)) endWaits(this, error);
      });
    }, this.heartbeatInterval);
    this[BEAT].unref();
    return Promise.race([fetch.call(this, nodeId), ended]).finally(() => {
      waiting.delete(wait);
      if (waiting.size === 0) {
        clearInterval(this[BEAT]);
        this[BEAT] = undefined;
      }
    });
  };

  Runner.prototype.stop = function stopWithoutWaitingForFetches(this: RunnerInternals): Promise<void> {
    // Runner.stop marks the runner stopped before its first await: a fetcher whose wait ends now does not fetch again.
    const stopped = stop.call(this);
    endWaits(this);
    return stopped;
  };
}
