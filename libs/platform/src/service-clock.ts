import { OffsetClock, SERVICE_CLOCK_REFRESH_MS, type Clock } from '@pay/kernel';
import type { Pool } from 'pg';

/** The durable sandbox clock: the offset lives in PostgreSQL and only grows. */
export class ServiceClockStore {
  constructor(private readonly pool: Pool) {}

  async load(clock: OffsetClock): Promise<void> {
    const { rows } = await this.pool.query<{ offset_ms: string }>('SELECT offset_ms FROM service_clock');
    clock.observeOffset(Number(rows[0]?.offset_ms ?? 0));
  }

  /** Adds `seconds` atomically and returns the new offset (concurrent advances both count). */
  async advance(clock: OffsetClock, seconds: number): Promise<number> {
    const { rows } = await this.pool.query<{ offset_ms: string }>(
      'UPDATE service_clock SET offset_ms = offset_ms + $1 RETURNING offset_ms',
      [seconds * 1000],
    );
    const offset = Number(rows[0]?.offset_ms);
    clock.observeOffset(offset);
    return offset;
  }
}

/**
 * The service clock of one app, kept in that app's own database only (never another app's table):
 *
 * - the gateway advances it in its own `service_clock` (ServiceClockStore.advance) and tells every
 *   app the new offset on its `<app>.apply-deadlines` topic (`clockOffsetMs`);
 * - the app's handler calls observeOffset, which also records the offset in the app's own
 *   `service_clock` (it only grows: GREATEST), so a restarted instance starts where it was;
 * - one instance of an app receives that message (the topic's consumer group shares the work): the
 *   others read their app's `service_clock` every SERVICE_CLOCK_REFRESH_MS (_SANDBOX where the clock
 *   can move) and follow within that; the handler answers once the offset is stored (stored()), and
 *   the gateway answers the advance SERVICE_CLOCK_FOLLOW_MS later, when every instance follows it.
 *
 * One database or seven, the same code: on a shared database the apps share one row, which only grows.
 */
export class PersistentOffsetClock extends OffsetClock {
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private refreshing = false;

  constructor(
    private readonly pool: Pool,
    private readonly onError: (message: string) => void = () => undefined,
    base?: Clock,
  ) {
    super(base);
  }

  /** Reads the stored offset once (at start), then every `refreshMs`. */
  async start(refreshMs = SERVICE_CLOCK_REFRESH_MS): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refreshQuietly(), refreshMs);
    this.timer.unref();
  }

  /** Stops following and waits for the last offset written (before the pool closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.writing;
  }

  override stored(): Promise<void> {
    return this.writing;
  }

  override observeOffset(offsetMs: number): void {
    const before = this.offset;
    super.observeOffset(offsetMs);
    if (this.offset > before) this.persist(this.offset);
  }

  private persist(offsetMs: number): void {
    this.writing = this.writing
      .then(async () => {
        await this.pool.query('UPDATE service_clock SET offset_ms = GREATEST(offset_ms, $1)', [offsetMs]);
      })
      .catch((error: unknown) => this.onError(`service clock offset ${offsetMs} not stored: ${String(error)}`));
  }

  private async refresh(): Promise<void> {
    const { rows } = await this.pool.query<{ offset_ms: string }>('SELECT offset_ms FROM service_clock');
    // super: a value read back is not written again.
    super.observeOffset(Number(rows[0]?.offset_ms ?? 0));
  }

  private async refreshQuietly(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      await this.refresh();
    } catch (error) {
      this.onError(`service clock not refreshed: ${String(error)}`);
    } finally {
      this.refreshing = false;
    }
  }
}
