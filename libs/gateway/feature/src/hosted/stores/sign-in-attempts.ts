import type { Pool } from 'pg';
import { MINUTE_MS, SIGN_IN_FAILURES_MAX, SIGN_IN_LOCKS_MS } from '@pay/kernel';
import type { MessageKey, MessageParams } from '@pay/hosted-ui';

/**
 * How many attempts a login has left before the SignInLimiter locks it: read only, from the limiter's
 * own count, for the warning a page shows after a wrong secret ("2 attempts left before a 15-minute
 * lock"). The limiter alone decides; this is what the person is told.
 */
export class SignInAttempts {
  constructor(private readonly pool: Pool) {}

  /**
   * The attempts left before the login's next lock, and that lock's length in minutes (undefined: the
   * lock lasts until the secret is reset). The limiter's count runs on across locks: each lock comes
   * SIGN_IN_FAILURES_MAX failures after the one before.
   */
  async left(login: string): Promise<{ attempts: number; lockMinutes: number | undefined }> {
    const { rows } = await this.pool.query<{ failures: number; locks: number; locked: boolean }>({
      name: 'gw-sign-in-attempts-left',
      text: `SELECT failures, locks, coalesce(locked_until > now(), false) AS locked FROM gw_sign_in_attempts WHERE login = $1`,
      values: [login],
    });
    const row = rows[0] ?? { failures: 0, locks: 0, locked: false };
    const next = SIGN_IN_LOCKS_MS[row.locks];
    return {
      attempts: row.locked ? 0 : Math.max(0, SIGN_IN_FAILURES_MAX * (row.locks + 1) - row.failures),
      lockMinutes: next === undefined ? undefined : next / MINUTE_MS,
    };
  }
}

/** The redirect's `&left=` (and the next lock's `&lock=` minutes, or `reset`) after a wrong secret; nothing once locked. */
export const attemptsLeftParam = ({ attempts, lockMinutes }: { attempts: number; lockMinutes: number | undefined }): string =>
  attempts > 0 && attempts < SIGN_IN_FAILURES_MAX ? `&left=${attempts}&lock=${lockMinutes ?? 'reset'}` : '';

export interface LockWarning {
  key: MessageKey;
  params: MessageParams;
}

/** The lengths a lock can have, in minutes, as `&lock=` may name them. */
const LOCK_MINUTES = new Set(SIGN_IN_LOCKS_MS.map((ms) => String(ms / MINUTE_MS)));

/**
 * The warning under a refused sign-in's secret field: the attempts left before the next lock, as the
 * sign-in answered them (`?error=sign_in&left=2&lock=15`; any other value shows nothing: a URL is typed by anyone).
 */
export const lockWarning = (error: unknown, left: unknown, lock: unknown): LockWarning | null => {
  if (error !== 'sign_in' || typeof left !== 'string' || !/^[1-9]$/.test(left) || Number(left) >= SIGN_IN_FAILURES_MAX) return null;
  const attempts = Number(left);
  if (lock === 'reset') return { key: attempts === 1 ? 'warning.attempts_left_reset_one' : 'warning.attempts_left_reset_other', params: { attempts } };
  if (typeof lock !== 'string' || !LOCK_MINUTES.has(lock)) return null;
  return { key: attempts === 1 ? 'warning.attempts_left_one' : 'warning.attempts_left_other', params: { attempts, minutes: Number(lock) } };
};
