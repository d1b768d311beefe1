import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { SIGN_IN_FAILURES_MAX } from '@pay/kernel';
import type { Pool } from 'pg';
import { GATEWAY_MIGRATIONS } from '../../gateway.module';
import { SignInLimiter } from './sign-in-limiter';

/** The lockout holds under parallel guesses: each attempt is counted before its secret is checked. */
describe('sign-in limiter', () => {
  let pool: Pool;
  let limiter: SignInLimiter;

  beforeAll(async () => {
    const url = await createTestDatabase('signin');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 20, statementTimeoutMs: 10_000 });
    limiter = new SignInLimiter(pool);
  });
  afterAll(() => pool.end());

  /** A guess as the pages make it: count the attempt, check the secret, record the outcome. */
  const guess = async (login: string, right: boolean): Promise<'session' | 'wrong' | 'locked' | 'refused'> => {
    if (!(await limiter.attempt(login))) return 'refused';
    if (right) {
      await limiter.succeeded(login);
      return 'session';
    }
    return (await limiter.failed(login)) ? 'locked' : 'wrong';
  };

  it('200 parallel guesses: at most five secrets are checked, the right one among the rest gets no session', async () => {
    const login = 'customer:+213555000150';
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => guess(login, i === 150)));
    const checked = outcomes.filter((o) => o !== 'refused');
    expect(outcomes.filter((o) => o === 'session')).toHaveLength(0);
    expect(checked.length).toBeLessThanOrEqual(SIGN_IN_FAILURES_MAX);
    expect(outcomes.filter((o) => o === 'refused').length).toBeGreaterThanOrEqual(200 - SIGN_IN_FAILURES_MAX);
    // Locked: even the right secret is refused now.
    expect(await guess(login, true)).toBe('refused');
  });

  it('a failure recorded during a lock never lifts or shortens it', async () => {
    const login = 'agent:night-shift';
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) await guess(login, false);
    const { rows: before } = await pool.query<{ locked_until: Date }>('SELECT locked_until FROM gw_sign_in_attempts WHERE login = $1', [login]);
    expect(before[0]!.locked_until.getTime()).toBeGreaterThan(Date.now());
    await limiter.failed(login);
    expect(await guess(login, false)).toBe('refused');
    const { rows: after } = await pool.query<{ locked_until: Date }>('SELECT locked_until FROM gw_sign_in_attempts WHERE login = $1', [login]);
    expect(after[0]!.locked_until.getTime()).toBeGreaterThanOrEqual(before[0]!.locked_until.getTime());
    expect(await guess(login, true)).toBe('refused');
  });

  it('a success clears the count; the lock expires after its time', async () => {
    const login = 'usr:accountant';
    for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await guess(login, false)).toBe('wrong');
    expect(await guess(login, true)).toBe('session');
    for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await guess(login, false)).toBe('wrong');
    expect(await guess(login, false)).toBe('locked');
    await pool.query(`UPDATE gw_sign_in_attempts SET locked_until = now() - interval '1 second' WHERE login = $1`, [login]);
    expect(await guess(login, true)).toBe('session');
  });
});
