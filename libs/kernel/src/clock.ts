/** The one source of time. Domain code receives `now` on its commands; only adapters call a clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Real time plus an offset that only grows (the sandbox clock). The offset itself is persisted by the
 * platform; this class only applies it.
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;
  constructor(private readonly base: Clock = systemClock) {}
  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }
  get offset(): number {
    return this.offsetMs;
  }
  /** Offsets never move back: a stale value from a slower peer is ignored. */
  observeOffset(offsetMs: number): void {
    if (!Number.isSafeInteger(offsetMs) || offsetMs < 0) throw new RangeError(`bad clock offset ${offsetMs}`);
    if (offsetMs > this.offsetMs) this.offsetMs = offsetMs;
  }
  /** Resolves once every offset observed so far is stored where the app's other instances read it (here: nothing to store). */
  stored(): Promise<void> {
    return Promise.resolve();
  }
}

/** ISO 8601 UTC with milliseconds, as the contract shows: 2026-11-22T10:00:00.000Z */
export const iso = (date: Date): string => date.toISOString();

export const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms);
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
