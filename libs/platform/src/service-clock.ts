import { OffsetClock, SERVICE_CLOCK_LISTEN_RETRY_MS, SERVICE_CLOCK_REFRESH_MS, type Clock } from '@pay/kernel';
import type { Pool, PoolClient } from 'pg';

/** The channel an offset stored in `service_clock` is announced on (its value the new offset, ms). */
export const SERVICE_CLOCK_CHANNEL = 'pay_service_clock';

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
      `WITH moved AS (UPDATE service_clock SET offset_ms = offset_ms + $1 RETURNING offset_ms)
       SELECT offset_ms, pg_notify('${SERVICE_CLOCK_CHANNEL}', offset_ms::text) FROM moved`,
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
 *   others follow the offset stored, announced on SERVICE_CLOCK_CHANNEL (LISTEN on a connection of
 *   their own), and read `service_clock` every SERVICE_CLOCK_REFRESH_MS besides; while that connection
 *   is down they read it every `refreshMs` of start() (SERVICE_CLOCK_REFRESH_MS_SANDBOX where the clock
 *   can move). The handler answers once the offset is stored (stored()), and the gateway answers the
 *   advance SERVICE_CLOCK_FOLLOW_MS later, when every instance follows it. Listening rather than reading
 *   every 50 ms spares each idle app and its PostgreSQL twenty reads a second.
 *
 * One database or seven, the same code: on a shared database the apps share one row, which only grows.
 */
export class PersistentOffsetClock extends OffsetClock {
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private refreshing = false;
  private refreshedAt = 0;
  private listener: PoolClient | undefined;
  private listenTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly onError: (message: string) => void = () => undefined,
    base?: Clock,
  ) {
    super(base);
  }

  /**
   * Reads the stored offset once (at start) and listens for the offsets stored after; reads it again
   * every SERVICE_CLOCK_REFRESH_MS, and every `refreshMs` while not listening.
   */
  async start(refreshMs = SERVICE_CLOCK_REFRESH_MS): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      if (this.listener && Date.now() - this.refreshedAt < SERVICE_CLOCK_REFRESH_MS) return;
      void this.refreshQuietly();
    }, Math.min(refreshMs, SERVICE_CLOCK_REFRESH_MS));
    this.timer.unref();
    await this.listen();
  }

  /** True while offsets stored by other instances arrive as they are stored. */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Stops following and waits for the last offset written (before the pool closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.listenTimer);
    this.unlisten();
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
        await this.pool.query(
          `WITH moved AS (UPDATE service_clock SET offset_ms = GREATEST(offset_ms, $1) RETURNING offset_ms)
           SELECT pg_notify('${SERVICE_CLOCK_CHANNEL}', offset_ms::text) FROM moved`,
          [offsetMs],
        );
      })
      .catch((error: unknown) => this.onError(`service clock offset ${offsetMs} not stored: ${String(error)}`));
  }

  /** LISTEN on a connection of its own; on failure or loss, reads by the short interval and tries again later. */
  private async listen(): Promise<void> {
    if (this.stopped || this.listener) return;
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      const connection = client;
      connection.on('error', (error: Error) => this.onListenerError(connection, error));
      connection.on('notification', this.onNotification);
      await client.query(`LISTEN ${SERVICE_CLOCK_CHANNEL}`);
      if (this.stopped) throw new Error('stopped');
      this.listener = client;
      // An offset stored before LISTEN took effect was not announced to this connection.
      await this.refreshQuietly();
    } catch (error) {
      if (client && this.listener !== client) {
        client.off('notification', this.onNotification);
        client.release(true);
      } else this.unlisten();
      if (!this.stopped) {
        this.onError(`service clock not listening (reading it every interval instead): ${String(error)}`);
        this.retryListen();
      }
    }
  }

  private retryListen(): void {
    clearTimeout(this.listenTimer);
    this.listenTimer = setTimeout(() => void this.listen(), SERVICE_CLOCK_LISTEN_RETRY_MS);
    this.listenTimer.unref();
  }

  private unlisten(): void {
    const client = this.listener;
    if (!client) return;
    this.listener = undefined;
    client.off('notification', this.onNotification);
    // Closed, not handed back to the pool still listening; its error handler stays (a closed
    // connection may still report an error after this).
    client.release(true);
  }

  private readonly onNotification = (message: { channel: string; payload?: string }): void => {
    const offset = Number(message.payload);
    // super: a value announced is stored already, not written again.
    if (message.channel === SERVICE_CLOCK_CHANNEL && Number.isSafeInteger(offset)) super.observeOffset(offset);
  };

  private onListenerError(client: PoolClient, error: Error): void {
    if (this.stopped || this.listener !== client) return;
    this.unlisten();
    this.onError(`service clock's LISTEN connection lost (reading it every interval until it is back): ${error.message}`);
    this.retryListen();
  }

  private async refresh(): Promise<void> {
    const { rows } = await this.pool.query<{ offset_ms: string }>('SELECT offset_ms FROM service_clock');
    this.refreshedAt = Date.now();
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
