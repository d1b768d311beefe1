import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import {
  POISON_AFTER_FAILURES,
  SUBSCRIPTION_BATCH_SIZE_DEFAULT,
  SUBSCRIPTION_BATCH_SIZE_MAX,
  SUBSCRIPTION_FOLLOW_POLL_MS,
  SUBSCRIPTION_FOLLOW_WAIT_MS,
  SUBSCRIPTION_IDLE_ADVANCE_MS,
  SUBSCRIPTION_POLL_INTERVAL_MS,
  SUBSCRIPTION_RETRY_DELAY_MS_MAX,
  SUBSCRIPTION_RETRY_DELAY_MS_MIN,
} from '@pay/kernel';
import { trackSubscriptionLag } from '@pay/observability';
import { inTransaction } from '@pay/platform';
import { advanceCheckpoint, CheckpointMovedError, loadCheckpoint, readCheckpoint } from './checkpoint-store';
import { comparePositions, matchesTypePrefixes, START, type EventStore, type Position, type RecordedEvent } from './event-store';
import { countParkedEvents, describeError, parkEvent, unparkEvent, updateParkedError } from './parked-events';

export interface CatchUpSubscriptionOptions {
  /** Names the checkpoint: a new instance with the same id resumes where the last one committed. */
  subscriptionId: string;
  /** Events are read through the port only, so any adapter works; checkpoints live in `pool`. */
  store: EventStore;
  pool: Pool;
  typePrefixes?: readonly string[];
  /** Events per batch (one transaction each): default 100, at most 1000. */
  batchSize?: number;
  /** How often to look for events appended by other processes: default 250. */
  pollIntervalMs?: number;
  /**
   * Whether an append by this process wakes the subscription at once (default true). The context
   * runtime's projections and relays say no: a relay is a safety net (every event is recorded by its
   * request before the request is answered), and a view's readers that need its newest rows call
   * `catchUp()`. They read every poll interval, a batch of many events, rather than a batch per append.
   * `catchUp()` wakes it at once either way.
   */
  wakesOnAppend?: boolean;
  /** Backoff after a failed batch doubles from the min to the max: defaults 100 and 5000. */
  retryDelayMsMin?: number;
  retryDelayMsMax?: number;
  /** Runs in the batch's transaction: its writes commit with the checkpoint, or neither does. */
  handle(events: RecordedEvent[], tx: PoolClient): Promise<void>;
  /** A failed batch (rolled back, retried after the backoff). Default: an error log line. */
  onError?(error: unknown): void;
  /**
   * After this many failures in a row (default 5) the batch is retried one event at a time; an event
   * that fails this many times alone is a poison message: parked in es_parked_events with its error,
   * reported, and passed over. Transient failures (fewer in a row) are only retried.
   */
  poisonAfterFailures?: number;
  /** A parked event. Default: an error log line. */
  onPoison?(event: RecordedEvent, error: unknown): void;
  /**
   * What `catchUp()` does while this subscription is not running here. `drain` (default): it runs the
   * batches itself. `follow`: another instance runs the subscription (SingleRunner), so it waits until
   * the checkpoint in PostgreSQL passes the last event of its types visible at the call, polling every
   * `followPollMs` for at most `followWaitMs` (default: a bus request's deadline, past which its caller
   * has already been answered 503).
   */
  whenStopped?: 'drain' | 'follow';
  followPollMs?: number;
  followWaitMs?: number;
}

/** What an operator sees of a subscription. */
export interface SubscriptionState {
  subscriptionId: string;
  /** The committed checkpoint and when it moved; null before the first batch. */
  checkpoint: { position: Position; updatedAt: Date } | null;
  /** Whole seconds since this process last found nothing more to handle: 0 when caught up. */
  lagSeconds: number;
  parkedEvents: number;
  running: boolean;
}

/** A replayed parked event: handled and off the list, failed again (still parked, with this error), or not parked. */
export type ReplayOutcome = { outcome: 'replayed' } | { outcome: 'failed'; error: string } | { outcome: 'not_parked' };

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Reads the global order in batches from a durable checkpoint and hands each batch to `handle`
 * together with the checkpoint update in one PostgreSQL transaction: after a crash it resumes from
 * the last committed batch, never skipping an event. A failing batch is retried with a bounded
 * backoff and the checkpoint never passes it.
 */
export class CatchUpSubscription {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retryDelayMsMin: number;
  private readonly retryDelayMsMax: number;
  private readonly poisonAfterFailures: number;
  private readonly followPollMs: number;
  private readonly followWaitMs: number;
  /** One event per batch while looking for a poison event; how many single events passed meanwhile. */
  private isolating = false;
  private isolatedPassed = 0;
  /** The events of the batch that failed last. */
  private failedEvents: RecordedEvent[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  /** The committed checkpoint; undefined until loaded, and after a failure (reloaded then). */
  private position: Position | undefined;
  /** catchUp() callers, released by the first batch read that starts after they asked and finds no more. */
  private waiters: Waiter[] = [];
  private wakeRequested = false;
  private cancelSleep: (() => void) | undefined;
  private sleepWakesOnAppend = false;
  private unsubscribe: (() => void) | undefined;
  /** Batches never overlap (loop and a catchUp() on a stopped subscription). */
  private exclusive: Promise<unknown> = Promise.resolve();
  /**
   * When a read last found nothing more to handle (Date.now() at its start): the subscription's lag is
   * the time since, reported on every scrape. Counting pending events in PostgreSQL instead would scan
   * every event after a checkpoint that only moves on the subscription's own types (no index on type).
   */
  private caughtUpAt = Date.now();
  /** A commit token read before the last read began (undefined: none yet); see idle(). */
  private tokenBeforeRead: string | undefined;
  /** When the last read began (performance.now()). */
  private readStartedAt = 0;
  /** When the checkpoint last moved past events of other types only (passOver). */
  private passedOverAt = 0;
  private untrackLag: (() => void) | undefined;
  /**
   * Set by the context runtime while another instance runs this subscription (SingleRunner): status()
   * then reports it running, its lag 0 here (the instance running it reports the lag, to metrics and
   * /ready).
   */
  standby = false;
  /** follow(): the read of the checkpoint in flight, shared by the requests waiting on it. */
  private checkpointRead: Promise<Position> | undefined;

  constructor(private readonly options: CatchUpSubscriptionOptions) {
    this.batchSize = options.batchSize ?? SUBSCRIPTION_BATCH_SIZE_DEFAULT;
    this.pollIntervalMs = options.pollIntervalMs ?? SUBSCRIPTION_POLL_INTERVAL_MS;
    this.retryDelayMsMin = options.retryDelayMsMin ?? SUBSCRIPTION_RETRY_DELAY_MS_MIN;
    this.retryDelayMsMax = options.retryDelayMsMax ?? SUBSCRIPTION_RETRY_DELAY_MS_MAX;
    this.poisonAfterFailures = options.poisonAfterFailures ?? POISON_AFTER_FAILURES;
    this.followPollMs = options.followPollMs ?? SUBSCRIPTION_FOLLOW_POLL_MS;
    this.followWaitMs = options.followWaitMs ?? SUBSCRIPTION_FOLLOW_WAIT_MS;
    assertIntegerIn('followPollMs', this.followPollMs, 1, 60_000);
    assertIntegerIn('followWaitMs', this.followWaitMs, this.followPollMs, 3_600_000);
    assertIntegerIn('poisonAfterFailures', this.poisonAfterFailures, 1, 1_000);
    assertIntegerIn('batchSize', this.batchSize, 1, SUBSCRIPTION_BATCH_SIZE_MAX);
    assertIntegerIn('pollIntervalMs', this.pollIntervalMs, 1, 3_600_000);
    assertIntegerIn('retryDelayMsMin', this.retryDelayMsMin, 1, this.retryDelayMsMax);
    assertIntegerIn('retryDelayMsMax', this.retryDelayMsMax, 1, 3_600_000);
    if (options.subscriptionId.length === 0) throw new RangeError('subscriptionId is empty');
  }

  /** Starts the loop (async so callers may await it like stop; it does not wait for a batch). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.caughtUpAt = Date.now();
    this.untrackLag = trackSubscriptionLag(this.options.subscriptionId, () => this.lagMs() / 1000);
    if (this.options.wakesOnAppend !== false) {
      this.unsubscribe = this.options.store.onAppended((types) => {
        if (this.reads(types)) this.wake();
      });
    }
    this.loop = this.run();
  }

  /** Stops polling and waits for the batch in flight to commit or roll back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.untrackLag?.();
    this.cancelSleep?.();
    await this.loop;
    const waiting = this.waiters.splice(0);
    if (this.options.whenStopped === 'follow') {
      // Handed over to another instance: its requests wait for that one's checkpoint instead of failing.
      for (const waiter of waiting) this.follow().then(waiter.resolve, waiter.reject);
    } else {
      this.release(waiting, new Error(`subscription ${this.options.subscriptionId} stopped`));
    }
  }

  /**
   * Resolves once every event visible now has been handled (with the PostgreSQL store: every event
   * committed before the call, unless an older writer stays open longer than readAll waits for it).
   * Rejects with the error of a batch that fails meanwhile (the subscription keeps retrying).
   * On a stopped subscription it runs the batches itself, or (`whenStopped: 'follow'`) waits for the
   * instance that runs them.
   */
  catchUp(): Promise<void> {
    if (!this.running) return this.options.whenStopped === 'follow' ? this.follow() : this.drain();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.wake();
    });
  }

  get subscriptionId(): string {
    return this.options.subscriptionId;
  }

  async status(): Promise<SubscriptionState> {
    const { subscriptionId, pool } = this.options;
    const [checkpoint, parkedEvents] = await Promise.all([readCheckpoint(pool, subscriptionId), countParkedEvents(pool, subscriptionId)]);
    const elsewhere = !this.running && this.standby;
    return { subscriptionId, checkpoint, lagSeconds: elsewhere ? 0 : Math.floor(this.lagMs() / 1000), parkedEvents, running: this.running || elsewhere };
  }

  /**
   * Handles a parked event again, alone, in one transaction that also takes it off the list: on
   * success it is no longer parked; on failure it stays parked with the new error. Never overlaps a
   * batch of this subscription.
   */
  replayParked(eventId: string): Promise<ReplayOutcome> {
    const replay = this.exclusive.then(() => this.replay(eventId));
    this.exclusive = replay.catch(() => undefined);
    return replay;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const waiting = this.waiters.splice(0);
      try {
        const size = this.currentBatchSize();
        const readAt = Date.now();
        const handled = await this.nextBatch();
        if (handled < size) this.caughtUpAt = readAt;
        failures = 0;
        if (this.isolating && handled > 0 && ++this.isolatedPassed >= this.batchSize) this.isolating = false;
        if (handled === size) {
          // A full batch: more may be visible already, so the waiters are not done.
          this.waiters.unshift(...waiting);
          continue;
        }
        this.release(waiting);
        await this.idle();
      } catch (error) {
        if (error instanceof CheckpointMovedError) {
          // Another instance committed this batch (a hand-over in progress): nothing failed, nothing
          // to park; the next batch reloads the checkpoint and answers the waiters.
          this.waiters.unshift(...waiting);
          continue;
        }
        failures += 1;
        this.release(waiting, error);
        this.report(error);
        if (failures >= this.poisonAfterFailures) {
          const [alone] = this.failedEvents;
          if (this.isolating && this.failedEvents.length === 1 && alone) {
            await this.park(alone, error).then(
              () => (this.isolating = false),
              (parkError: unknown) => this.report(parkError),
            );
          } else {
            this.isolating = true;
            this.isolatedPassed = 0;
          }
          failures = 0;
          continue;
        }
        // Appends do not cut the backoff short: a failing handler must not spin.
        await this.sleep(this.retryDelayMs(failures), false);
      }
    }
  }

  /**
   * Waits until the checkpoint (moved by the instance that runs this subscription) is at or past the
   * last event of its types visible now; bounded by followWaitMs.
   */
  private async follow(): Promise<void> {
    const { subscriptionId, pool } = this.options;
    const deadline = Date.now() + this.followWaitMs;
    // Requests following at once share one read of the checkpoint in flight, not one query each per poll.
    const checkpoint = () =>
      (this.checkpointRead ??= readCheckpoint(pool, subscriptionId)
        .then((stored) => stored?.position ?? START)
        .finally(() => (this.checkpointRead = undefined)));
    const head = await this.visibleHead(await checkpoint());
    if (!head) return;
    for (;;) {
      if (comparePositions(await checkpoint(), head) >= 0) return;
      if (Date.now() >= deadline) {
        throw new Error(`subscription ${subscriptionId}: the instance running it did not reach ${head.commit}/${head.prepare} within ${this.followWaitMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, this.followPollMs));
    }
  }

  /** The position of the last event of this subscription's types after `after` visible now; undefined when none. */
  private async visibleHead(after: Position): Promise<Position | undefined> {
    const { store, typePrefixes } = this.options;
    let head: Position | undefined;
    for (;;) {
      const { events } = await store.readAllPage({ after: head ?? after, maxCount: this.batchSize, typePrefixes });
      const last = events.at(-1)?.position;
      if (last) head = last;
      if (events.length < this.batchSize) return head;
    }
  }

  private async drain(): Promise<void> {
    while ((await this.nextBatch()) === this.batchSize) {
      // A full batch: read again until one comes back short.
    }
  }

  private nextBatch(): Promise<number> {
    const batch = this.exclusive.then(() => this.processBatch());
    this.exclusive = batch.catch(() => undefined);
    return batch;
  }

  /** One batch: read after the checkpoint, handle and advance the checkpoint in one transaction. */
  private async processBatch(): Promise<number> {
    this.wakeRequested = false;
    const { subscriptionId, store, pool, typePrefixes } = this.options;
    try {
      const after = this.position ?? (await loadCheckpoint(pool, subscriptionId));
      this.position = after;
      this.readStartedAt = performance.now();
      const { events, scannedTo } = await store.readAllPage({ after, maxCount: this.currentBatchSize(), typePrefixes });
      const last = events.at(-1)?.position;
      if (!last) {
        if (scannedTo) await this.passOver(after, scannedTo);
        return 0;
      }
      assertAscendingAfter(after, events);
      // A short page holds every event of our types up to scannedTo: the checkpoint may pass it.
      const to = scannedTo && comparePositions(scannedTo, last) > 0 ? scannedTo : last;
      this.failedEvents = events;
      await inTransaction(pool, async (tx) => {
        await this.options.handle(events, tx);
        await advanceCheckpoint(tx, subscriptionId, after, to);
      });
      this.failedEvents = [];
      this.position = to;
      return events.length;
    } catch (error) {
      this.position = undefined;
      throw error;
    }
  }

  /**
   * Moves the checkpoint past events of other types only (none to handle), at most every
   * SUBSCRIPTION_IDLE_ADVANCE_MS: without it, a subscription whose types are rare would read over every
   * newer event again on each wake, a cost growing with the store. Nothing is handled, so the write
   * need not wait for the disk (a move lost in a crash is only read over again); another instance
   * having moved the checkpoint is not a failure: the next batch reloads it.
   */
  private async passOver(after: Position, to: Position): Promise<void> {
    if (Date.now() - this.passedOverAt < SUBSCRIPTION_IDLE_ADVANCE_MS) return;
    this.passedOverAt = Date.now();
    try {
      await inTransaction(this.options.pool, async (tx) => {
        await tx.query('SET LOCAL synchronous_commit = off');
        await advanceCheckpoint(tx, this.options.subscriptionId, after, to);
      });
      this.position = to;
    } catch (error) {
      if (!(error instanceof CheckpointMovedError)) throw error;
      this.position = undefined;
    }
  }

  private currentBatchSize(): number {
    return this.isolating ? 1 : this.batchSize;
  }

  /** Records the poison event and moves the checkpoint past it, in one transaction; then reports it. */
  private async park(event: RecordedEvent, error: unknown): Promise<void> {
    const { subscriptionId, pool } = this.options;
    const after = this.position ?? (await loadCheckpoint(pool, subscriptionId));
    await inTransaction(pool, async (tx) => {
      await parkEvent(tx, { subscriptionId, eventId: event.id, streamId: event.streamId, type: event.type, error: describeError(error) });
      await advanceCheckpoint(tx, subscriptionId, after, event.position);
    });
    this.position = event.position;
    this.failedEvents = [];
    try {
      if (this.options.onPoison) this.options.onPoison(event, error);
      else logger.error(`subscription ${subscriptionId}: event ${event.id} (${event.type}) parked as poison after repeated failures: ${reasonOf(error)}`);
    } catch {
      // The reporter's failure must not stop the subscription.
    }
  }

  private async replay(eventId: string): Promise<ReplayOutcome> {
    const { subscriptionId, store, pool } = this.options;
    const { rows } = await pool.query<{ stream_id: string }>('SELECT stream_id FROM es_parked_events WHERE subscription_id = $1 AND event_id = $2', [
      subscriptionId,
      eventId,
    ]);
    const streamId = rows[0]?.stream_id;
    if (streamId === undefined) return { outcome: 'not_parked' };
    let unparked = true;
    try {
      const event = await store.readEvent(streamId, eventId);
      if (!event) throw new Error(`event ${eventId} is not in stream ${streamId}`);
      await inTransaction(pool, async (tx) => {
        // Taken off first: the row lock makes a concurrent replay of the same event wait, then find nothing.
        unparked = await unparkEvent(tx, subscriptionId, eventId);
        if (unparked) await this.options.handle([event], tx);
      });
    } catch (error) {
      const described = describeError(error);
      await updateParkedError(pool, subscriptionId, eventId, described);
      return { outcome: 'failed', error: described };
    }
    return unparked ? { outcome: 'replayed' } : { outcome: 'not_parked' };
  }

  private lagMs(): number {
    return Date.now() - this.caughtUpAt;
  }

  /** Whether appended events of these types (undefined: unknown) may be for this subscription. */
  private reads(types: ReadonlySet<string> | undefined): boolean {
    const prefixes = this.options.typePrefixes ?? [];
    if (types === undefined || prefixes.length === 0) return true;
    for (const type of types) if (matchesTypePrefixes(type, prefixes)) return true;
    return false;
  }

  private wake(): void {
    if (this.cancelSleep && this.sleepWakesOnAppend) this.cancelSleep();
    else this.wakeRequested = true;
  }

  /**
   * After a read that caught up, until the next one is due: at once when woken (an append in this
   * process, catchUp(), stop()); otherwise at each poll interval, if events may have become readable
   * since the last read began. The store's commit token tells (where it has one): unchanged since before
   * that read, there is nothing new to read. A token is at most one interval old and read after that
   * read began; one read of it serves every subscription of the process it meets, so an idle process
   * polls the token, not each subscription's events. A read skipped wrongly could only make events late,
   * never lost: every read starts from the checkpoint, and the next append moves the token.
   */
  private async idle(): Promise<void> {
    const { store } = this.options;
    for (;;) {
      if ((await this.sleep(this.pollIntervalMs, true)) || !store.commitToken) return;
      let token: string;
      try {
        token = await store.commitToken(Math.max(this.readStartedAt, performance.now() - this.pollIntervalMs));
      } catch {
        return; // the read says what failed
      }
      if (token !== this.tokenBeforeRead) {
        this.tokenBeforeRead = token;
        return;
      }
      this.caughtUpAt = Date.now();
    }
  }

  /** Resolves true when cut short (a wake, stop()), false when the time ran out. */
  private sleep(ms: number, wakesOnAppend: boolean): Promise<boolean> {
    if (!this.running || (wakesOnAppend && this.wakeRequested)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (cut: boolean) => {
        clearTimeout(timer);
        this.cancelSleep = undefined;
        resolve(cut);
      };
      const timer = setTimeout(() => done(false), ms);
      this.cancelSleep = () => done(true);
      this.sleepWakesOnAppend = wakesOnAppend;
    });
  }

  private retryDelayMs(failures: number): number {
    return Math.min(this.retryDelayMsMax, this.retryDelayMsMin * 2 ** Math.min(failures - 1, 30));
  }

  private release(waiters: Waiter[], error?: unknown): void {
    for (const waiter of waiters) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  private report(error: unknown): void {
    const { onError, subscriptionId } = this.options;
    try {
      if (onError) onError(error);
      else logger.error(`subscription ${subscriptionId}: batch failed, retrying: ${reasonOf(error)}`);
    } catch {
      // The reporter's failure must not stop the subscription.
    }
  }
}

const logger = new Logger('subscription');
const reasonOf = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));

/** The store must hand back events strictly after the checkpoint, in order: otherwise we would skip or repeat. */
function assertAscendingAfter(after: Position, events: readonly RecordedEvent[]): void {
  let previous = after;
  for (const event of events) {
    if (comparePositions(previous, event.position) >= 0) {
      throw new Error(`readAll returned event ${event.id} out of order (not after ${previous.commit}/${previous.prepare})`);
    }
    previous = event.position;
  }
}

function assertIntegerIn(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
}
