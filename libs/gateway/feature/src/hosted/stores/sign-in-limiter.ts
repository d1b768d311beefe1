import type { Pool } from 'pg';
import { MINUTE_MS, SECOND_MS, SIGN_IN_FAILURES_MAX, SIGN_IN_LOCK_MS } from '@pay/kernel';

/** As the pages say it. */
export const SIGN_IN_LOCK_MINUTES = SIGN_IN_LOCK_MS / MINUTE_MS;

/**
 * Five wrong PINs, passwords or codes in a row lock the login for 15 minutes (real time). Every attempt
 * is counted, in one statement, before its secret is checked: of 200 parallel guesses, five are
 * checked and the rest refused. A lock is never shortened; a success clears the count.
 */
export class SignInLimiter {
  constructor(private readonly pool: Pool) {}

  /**
   * Counts an attempt and answers whether its secret may be checked: false while the login is locked,
   * and for every attempt beyond the fifth since the last success (which locks it).
   */
  async attempt(login: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ locked: boolean }>({
      name: 'gw-sign-in-attempt',
      text: `INSERT INTO gw_sign_in_attempts AS a (login, failures) VALUES ($1, 1)
             ON CONFLICT (login) DO UPDATE SET
               failures = CASE WHEN a.locked_until <= now() THEN 1 ELSE a.failures + 1 END,
               locked_until = CASE
                 WHEN a.locked_until <= now() THEN NULL
                 WHEN a.locked_until > now() THEN a.locked_until
                 WHEN a.failures + 1 > $2 THEN now() + make_interval(secs => $3)
                 ELSE NULL END,
               updated_at = now()
             RETURNING locked_until IS NOT NULL AS locked`,
      values: [login, SIGN_IN_FAILURES_MAX, SIGN_IN_LOCK_MS / SECOND_MS],
    });
    return !rows[0]!.locked;
  }

  /** The attempt's secret was wrong; true when the login is now locked (the fifth failure in a row). */
  async failed(login: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ locked: boolean }>({
      name: 'gw-sign-in-failed',
      text: `UPDATE gw_sign_in_attempts SET
               locked_until = CASE WHEN failures >= $2 THEN GREATEST(coalesce(locked_until, now()), now() + make_interval(secs => $3)) ELSE locked_until END,
               updated_at = now()
             WHERE login = $1 RETURNING locked_until > now() AS locked`,
      values: [login, SIGN_IN_FAILURES_MAX, SIGN_IN_LOCK_MS / SECOND_MS],
    });
    return rows[0]?.locked ?? false;
  }

  /** The attempt's secret was right: the count starts again (a lock set meanwhile stays). */
  async succeeded(login: string): Promise<void> {
    await this.pool.query('DELETE FROM gw_sign_in_attempts WHERE login = $1 AND (locked_until IS NULL OR locked_until <= now())', [login]);
  }

  /**
   * One sign-in: the attempt counted, then `verify` (the secret checked) only if the login is not
   * locked, then the outcome recorded. The subject signed in, or the page's `?error=` code.
   */
  async signIn<T>(login: string, verify: () => Promise<T | undefined>): Promise<{ subject: T } | { refused: 'locked' | 'sign_in' }> {
    if (!(await this.attempt(login))) return { refused: 'locked' };
    const subject = await verify();
    if (!subject) return { refused: (await this.failed(login)) ? 'locked' : 'sign_in' };
    await this.succeeded(login);
    return { subject };
  }
}
