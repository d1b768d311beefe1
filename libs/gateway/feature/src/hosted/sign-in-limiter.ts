import type { Pool } from 'pg';

export const SIGN_IN_FAILURES_MAX = 5;
export const SIGN_IN_LOCK_MS = 15 * 60_000;

/** Five wrong PINs or passwords in a row lock the login for 15 minutes (real time). */
export class SignInLimiter {
  constructor(private readonly pool: Pool) {}

  async isLocked(login: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM gw_sign_in_attempts WHERE login = $1 AND locked_until > now()', [login]);
    return rows.length > 0;
  }

  /** Returns true when this failure locked the login. */
  async failed(login: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ failures: number }>(
      `INSERT INTO gw_sign_in_attempts (login, failures) VALUES ($1, 1)
       ON CONFLICT (login) DO UPDATE SET failures = CASE WHEN gw_sign_in_attempts.locked_until <= now() THEN 1 ELSE gw_sign_in_attempts.failures + 1 END,
         locked_until = NULL, updated_at = now()
       RETURNING failures`,
      [login],
    );
    if ((rows[0]?.failures ?? 0) < SIGN_IN_FAILURES_MAX) return false;
    await this.pool.query(`UPDATE gw_sign_in_attempts SET locked_until = now() + make_interval(secs => $2), failures = 0 WHERE login = $1`, [
      login,
      SIGN_IN_LOCK_MS / 1000,
    ]);
    return true;
  }

  async succeeded(login: string): Promise<void> {
    await this.pool.query('DELETE FROM gw_sign_in_attempts WHERE login = $1', [login]);
  }
}
