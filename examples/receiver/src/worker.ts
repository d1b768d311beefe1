import type { Pool, PoolClient } from 'pg';
import type { Event } from '@pay/sdk';
import { inTransaction } from './db';

export type Handler = (db: PoolClient, event: Event) => Promise<string>;

const MAX_RETRY_DELAY_SECONDS = 300;

/**
 * Processes the stored events, oldest first, one transaction each: the handler's order update and
 * `processed_at` commit together or not at all (rule 4). Rows are claimed FOR UPDATE SKIP LOCKED, so
 * several workers (or receivers) never take the same event. At start it picks up what a previous run
 * stored and did not process (a crash between the 2xx and the processing).
 */
export class Worker {
  private running: Promise<void> | undefined;
  private stopped = false;
  private woken = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly handle: Handler,
    private readonly log: (line: string) => void,
    private readonly pollMs = 1_000,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** A new event was stored: process it now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Finishes the event in hand, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let busy = false;
      try {
        busy = await this.processNext();
      } catch (error) {
        this.log(`worker: ${(error as Error).message}; trying again in ${this.pollMs} ms`); // e.g. the database is unreachable
      }
      if (!busy && !this.stopped && !this.woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wakeUp = () => (clearTimeout(timer), resolve());
        });
      }
      this.woken = false;
      this.wakeUp = undefined;
    }
  }

  /** Processes one event; false when none is due. */
  private async processNext(): Promise<boolean> {
    // Set inside the transaction; read after it, to log or to record a failure.
    const current: { event?: { id: string; type: string; body: Event } } = {};
    try {
      const outcome = await inTransaction(this.pool, async (db) => {
        const { rows } = await db.query(
          `SELECT id, type, body FROM received_events
           WHERE processed_at IS NULL AND (retry_at IS NULL OR retry_at <= now())
           ORDER BY received_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        );
        current.event = rows[0];
        if (!current.event) return undefined;
        const result = await this.handle(db, current.event.body);
        await db.query('UPDATE received_events SET processed_at = now(), outcome = $2, retry_at = NULL, last_error = NULL WHERE id = $1', [current.event.id, result]);
        return result;
      });
      const claimed = current.event;
      if (!claimed) return false;
      this.log(`processed ${claimed.id} ${claimed.type}: ${outcome}`);
      return true;
    } catch (error) {
      const claimed = current.event;
      if (!claimed) throw error;
      // Rolled back: not processed. Tried again later, with a growing delay, without holding up the other events.
      const message = error instanceof Error ? error.message : String(error);
      await this.pool.query(
        `UPDATE received_events SET failures = failures + 1, last_error = $2,
           retry_at = now() + least(power(2, failures), $3) * interval '1 second'
         WHERE id = $1`,
        [claimed.id, message, MAX_RETRY_DELAY_SECONDS],
      );
      this.log(`event ${claimed.id} ${claimed.type} not processed, tried again later: ${message}`);
      return true;
    }
  }
}
