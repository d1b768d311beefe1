import type { OffsetClock } from '@pay/kernel';
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
