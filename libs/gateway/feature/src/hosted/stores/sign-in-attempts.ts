import type { Pool } from 'pg';
import { SIGN_IN_FAILURES_MAX } from '@pay/kernel';
import type { MessageKey, MessageParams } from '@pay/hosted-ui';
import { SIGN_IN_LOCK_MINUTES } from './sign-in-limiter';

/**
 * How many attempts a login has left before the SignInLimiter locks it: read only, from the limiter's
 * own count, for the warning a page shows after a wrong secret ("2 attempts left before a 15-minute
 * lock"). The limiter alone decides; this is what the person is told.
 */
export class SignInAttempts {
  constructor(private readonly pool: Pool) {}

  async left(login: string): Promise<number> {
    const { rows } = await this.pool.query<{ failures: number; locked: boolean; lapsed: boolean }>({
      name: 'gw-sign-in-attempts-left',
      text: `SELECT failures, coalesce(locked_until > now(), false) AS locked, coalesce(locked_until <= now(), false) AS lapsed
             FROM gw_sign_in_attempts WHERE login = $1`,
      values: [login],
    });
    const row = rows[0];
    if (!row || row.lapsed) return SIGN_IN_FAILURES_MAX;
    return row.locked ? 0 : Math.max(0, SIGN_IN_FAILURES_MAX - row.failures);
  }
}

/** The redirect's `&left=` after a wrong secret (nothing once locked: the lock's message says it). */
export const attemptsLeftParam = (left: number): string => (left > 0 && left < SIGN_IN_FAILURES_MAX ? `&left=${left}` : '');

export interface LockWarning {
  key: MessageKey;
  params: MessageParams;
}

/**
 * The warning under a refused sign-in's secret field: the attempts left before the lock, as the
 * sign-in answered them (`?error=sign_in&left=2`; any other value shows nothing: a URL is typed by anyone).
 */
export const lockWarning = (error: unknown, left: unknown): LockWarning | null => {
  if (error !== 'sign_in' || typeof left !== 'string' || !/^[1-9]$/.test(left) || Number(left) >= SIGN_IN_FAILURES_MAX) return null;
  const attempts = Number(left);
  return { key: attempts === 1 ? 'warning.attempts_left_one' : 'warning.attempts_left_other', params: { attempts, minutes: SIGN_IN_LOCK_MINUTES } };
};
