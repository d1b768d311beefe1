import type { Pool } from 'pg';
import { CONSOLE_SIGN_IN_FAILURES_MAX, CONSOLE_SIGN_IN_LOCK_MS, MINUTE_MS, SECOND_MS } from '@pay/kernel';

/** As the sign-in page says it. */
export const CONSOLE_LOCK_MINUTES = CONSOLE_SIGN_IN_LOCK_MS / MINUTE_MS;

/**
 * The console's sign-in, limited per client address: every attempt is counted in one statement before
 * its key is checked, so of 100 parallel guesses at most CONSOLE_SIGN_IN_FAILURES_MAX are checked; the
 * next one locks the address for CONSOLE_SIGN_IN_LOCK_MS (never shortened). A success clears the count.
 */
export class ConsoleSignInLimiter {
  constructor(private readonly pool: Pool) {}

  /** Counts an attempt; true when its key may be checked (the address is not locked and is within its budget). */
  async attempt(client: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ allowed: boolean }>({
      name: 'gw-console-sign-in-attempt',
      text: `INSERT INTO gw_console_sign_in_attempts AS a (client, failures) VALUES ($1, 1)
             ON CONFLICT (client) DO UPDATE SET
               failures = CASE WHEN a.locked_until <= now() THEN 1 ELSE a.failures + 1 END,
               locked_until = CASE
                 WHEN a.locked_until <= now() THEN NULL
                 WHEN a.locked_until > now() THEN a.locked_until
                 WHEN a.failures + 1 > $2 THEN now() + make_interval(secs => $3)
                 ELSE NULL END,
               updated_at = now()
             RETURNING locked_until IS NULL AS allowed`,
      values: [client, CONSOLE_SIGN_IN_FAILURES_MAX, CONSOLE_SIGN_IN_LOCK_MS / SECOND_MS],
    });
    return rows[0]!.allowed;
  }

  /** The key was right: the count starts again (a lock set meanwhile by parallel failures stays). */
  async succeeded(client: string): Promise<void> {
    await this.pool.query('DELETE FROM gw_console_sign_in_attempts WHERE client = $1 AND locked_until IS NULL', [client]);
  }

  /** One sign-in: counted, then `verify` only when allowed. The role signed in, or why not. */
  async signIn<T>(client: string, verify: () => Promise<T | undefined>): Promise<{ subject: T } | { refused: 'locked' | 'sign_in' }> {
    if (!(await this.attempt(client))) return { refused: 'locked' };
    const subject = await verify();
    if (subject === undefined) return { refused: 'sign_in' };
    await this.succeeded(client);
    return { subject };
  }
}
