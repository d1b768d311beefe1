import { HOUR_MS, MINUTE_MS } from '@pay/kernel';

/** Delays before each retry, after the previous attempt, on the service clock (contract section 6). */
export const RETRY_DELAYS_MS = [5_000, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 10 * HOUR_MS] as const;
export const ATTEMPTS_MAX = RETRY_DELAYS_MS.length + 1;

/** After failed attempt number `attempt` (1-based): when to try again, or null when that was the last. */
export const nextRetryAt = (attempt: number, now: Date): Date | null => {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay);
};
