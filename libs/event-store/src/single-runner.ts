import type { Pool, PoolClient } from 'pg';
import { SINGLE_RUNNER_RETRY_MS } from '@pay/kernel';

/**
 * Background work that must run in one instance of an app at a time, whatever the number of instances.
 *
 * What runs twice today when an app has two instances, and why nothing is lost or doubled:
 *
 * - A projection (CatchUpSubscription): both instances read the same batch; the batch's writes and the
 *   checkpoint's compare-and-set commit in one transaction, so one commits and the other rolls back
 *   (CheckpointMovedError) and reloads. Never doubled. But the loser counts a failure: five in a row
 *   and it isolates events and may park one that the winner handled, and a `catchUp()` waiter (a
 *   request reading its own writes) is rejected with that error. Correct, wasteful, noisy: one runner.
 * - A relay: the batch's `events.record-batch` requests leave before the checkpoint's compare-and-set, so
 *   both instances may send them; the webhooks app records an event once by its stable id (the same
 *   change always has the same `evt_` id): delivered once, under one id. One runner saves the doubled
 *   requests.
 * - A sweeper: both apply the same deadline or resume the same stalled process; each is a command
 *   appended at the expected revision (the second is a conflict or a no-op) and every ledger movement
 *   carries an idempotency key. Never doubled; one runner is only cheaper.
 * - The webhook dispatcher: a delivery is claimed with FOR UPDATE SKIP LOCKED and a lease, so two
 *   dispatchers never attempt it at once; a lease left by a stopped instance is taken over when it
 *   expires. Needs nothing more.
 *
 * So a single runner is an efficiency, for the subscriptions and sweepers (and a projection's loser no
 * longer counts a CheckpointMovedError as a failure: CatchUpSubscription retries it at once). SingleRunner gives it with a
 * PostgreSQL session advisory lock held on a connection of its own: the holder runs, the others try
 * again every `retryMs`; the lock goes with the holder's connection (a crash, a stop, a lost server),
 * and a holder whose connection is lost stops its work before another may take over. Every instance
 * of an app uses the app's own database, so the lock names need only be unique within an app.
 */
export interface SingleRunnerOptions {
  pool: Pool;
  /** The work's name, e.g. `subscription:payments.payment-views`; hashed to the lock's key. */
  name: string;
  /** Starts the work once this instance holds the lock. */
  start(): Promise<void>;
  /** Stops it (waits for the batch in flight): on stop(), and when the lock's connection is lost. */
  stop(): Promise<void>;
  /** How often a standby instance tries to take over (default SINGLE_RUNNER_RETRY_MS). */
  retryMs?: number;
  onError?(error: unknown): void;
}

export class SingleRunner {
  private client: PoolClient | undefined;
  private onLost: ((error: Error) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running = false;
  /** Attempts and hand-overs never overlap. */
  private turn: Promise<void> = Promise.resolve();

  constructor(private readonly options: SingleRunnerOptions) {
    const retryMs = options.retryMs ?? SINGLE_RUNNER_RETRY_MS;
    if (!Number.isInteger(retryMs) || retryMs < 1 || retryMs > 60_000) throw new RangeError(`retryMs must be an integer from 1 to 60000, got ${retryMs}`);
  }

  /** Whether this instance holds the lock and runs the work now. */
  get holding(): boolean {
    return this.running;
  }

  /** Tries at once (so a lone instance runs before it serves), then every retryMs until stopped. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.serialized(() => this.attempt());
    this.timer = setInterval(() => void this.serialized(() => this.attempt()), this.options.retryMs ?? SINGLE_RUNNER_RETRY_MS);
    this.timer.unref();
  }

  /** Stops the work (when held), then gives the lock back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.serialized(() => this.release());
  }

  private serialized(step: () => Promise<void>): Promise<void> {
    const next = this.turn.then(step).catch((error: unknown) => this.options.onError?.(error));
    this.turn = next;
    return next;
  }

  private async attempt(): Promise<void> {
    if (this.stopped || this.running) return;
    const client = await this.options.pool.connect();
    let held = false;
    try {
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held', [this.options.name]);
      held = rows[0]?.held === true;
    } finally {
      if (!held) client.release();
    }
    if (!held) return;
    this.client = client;
    // The lock lives as long as this connection: lost, another instance may take over, so this one stops.
    this.onLost = (error) => {
      this.options.onError?.(error);
      void this.serialized(() => this.release(true));
    };
    client.on('error', this.onLost);
    this.running = true;
    try {
      await this.options.start();
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  private async release(lost = false): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    if (this.onLost) client.off('error', this.onLost);
    this.onLost = undefined;
    try {
      if (this.running) {
        this.running = false;
        await this.options.stop();
      }
    } catch (error) {
      client.release(true); // the work did not stop cleanly: closing the connection still gives the lock back
      throw error;
    }
    if (lost) {
      client.release(true);
      return;
    }
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [this.options.name]);
      client.release();
    } catch (error) {
      client.release(true); // closing the connection gives the lock back too
      throw error;
    }
  }
}
