import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { MINUTE_MS, SIGN_IN_FAILURES_MAX, SIGN_IN_LOCKS_MS } from '@pay/kernel';
import type { Pool } from 'pg';
import { GATEWAY_MIGRATIONS } from '../../gateway.module';
import { attemptsLeftParam, lockWarning, SignInAttempts } from './sign-in-attempts';
import { SignInLimiter } from './sign-in-limiter';

/** The attempts a page says are left are the limiter's own count. */
describe('sign-in attempts left', () => {
  let pool: Pool;
  let limiter: SignInLimiter;
  let attempts: SignInAttempts;

  beforeAll(async () => {
    const url = await createTestDatabase('attempts');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 4, statementTimeoutMs: 10_000 });
    limiter = new SignInLimiter(pool);
    attempts = new SignInAttempts(pool);
  });
  afterAll(() => pool.end());

  let address = 0;
  // A new client address each time: these tests are about the login's count, not an address's.
  const signIn = (login: string, verify: () => Promise<{ id: string } | undefined>) => limiter.signIn(login, `192.0.2.${++address % 250}`, verify);
  const wrong = (login: string) => signIn(login, async () => undefined);
  const lockEnds = (login: string) => pool.query(`UPDATE gw_sign_in_attempts SET locked_until = now() - interval '1 second', updated_at = now() - interval '1 hour' WHERE login = $1`, [login]);

  it('counts down with each wrong secret, to none once locked; a success starts again', async () => {
    expect(await attempts.left('agent:a')).toEqual({ attempts: SIGN_IN_FAILURES_MAX, lockMinutes: 15 });
    const seen: number[] = [];
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) {
      await wrong('agent:a');
      seen.push((await attempts.left('agent:a')).attempts);
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    expect(await signIn('agent:a', async () => ({ id: 'x' }))).toEqual({ refused: 'locked' });
    await wrong('agent:b');
    await signIn('agent:b', async () => ({ id: 'x' }));
    expect((await attempts.left('agent:b')).attempts).toBe(SIGN_IN_FAILURES_MAX);
  });

  it('after a lock ends, the count runs on toward the next, longer lock, and at last toward the lock until reset', async () => {
    const login = 'customer:+213555000999';
    for (const [step, minutes] of SIGN_IN_LOCKS_MS.map((ms, i) => [i, ms / MINUTE_MS] as const)) {
      expect(await attempts.left(login)).toEqual({ attempts: SIGN_IN_FAILURES_MAX, lockMinutes: minutes });
      await wrong(login);
      expect(attemptsLeftParam(await attempts.left(login))).toBe(`&left=${SIGN_IN_FAILURES_MAX - 1}&lock=${minutes}`);
      for (let i = 1; i < SIGN_IN_FAILURES_MAX; i++) await wrong(login);
      expect((await attempts.left(login)).attempts).toBe(0);
      if (step < SIGN_IN_LOCKS_MS.length) await lockEnds(login);
    }
    expect(await attempts.left(login)).toEqual({ attempts: SIGN_IN_FAILURES_MAX, lockMinutes: undefined });
    await wrong(login);
    expect(attemptsLeftParam(await attempts.left(login))).toBe(`&left=${SIGN_IN_FAILURES_MAX - 1}&lock=reset`);
  });

  it('the warning takes the count and the lock from the redirect only in range, and nothing once locked', () => {
    expect(attemptsLeftParam({ attempts: 2, lockMinutes: 15 })).toBe('&left=2&lock=15');
    expect([attemptsLeftParam({ attempts: 0, lockMinutes: 15 }), attemptsLeftParam({ attempts: SIGN_IN_FAILURES_MAX, lockMinutes: 15 })]).toEqual(['', '']);
    expect(lockWarning('sign_in', '2', '15')).toEqual({ key: 'warning.attempts_left_other', params: { attempts: 2, minutes: 15 } });
    expect(lockWarning('sign_in', '1', '60')).toEqual({ key: 'warning.attempts_left_one', params: { attempts: 1, minutes: 60 } });
    expect(lockWarning('sign_in', '1', 'reset')).toEqual({ key: 'warning.attempts_left_reset_one', params: { attempts: 1 } });
    for (const forged of ['0', '5', '9', '-1', '2.5', '02', ['2'], undefined]) expect(lockWarning('sign_in', forged, '15')).toBeNull();
    for (const forged of ['7', '', 'x', undefined, ['15']]) expect(lockWarning('sign_in', '2', forged)).toBeNull();
    expect(lockWarning('locked', '2', '15')).toBeNull();
  });
});
