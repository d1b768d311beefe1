import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { SIGN_IN_FAILURES_MAX } from '@pay/kernel';
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

  const wrong = (login: string) => limiter.signIn(login, async () => undefined);

  it('counts down with each wrong secret, to none once locked; a success starts again', async () => {
    expect(await attempts.left('agent:a')).toBe(SIGN_IN_FAILURES_MAX);
    const seen: number[] = [];
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) {
      await wrong('agent:a');
      seen.push(await attempts.left('agent:a'));
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    expect(await limiter.signIn('agent:a', async () => ({ id: 'x' }))).toEqual({ refused: 'locked' });
    await wrong('agent:b');
    await limiter.signIn('agent:b', async () => ({ id: 'x' }));
    expect(await attempts.left('agent:b')).toBe(SIGN_IN_FAILURES_MAX);
  });

  it('the warning takes the count from the redirect only in range, and nothing once locked', () => {
    expect(attemptsLeftParam(2)).toBe('&left=2');
    expect([attemptsLeftParam(0), attemptsLeftParam(SIGN_IN_FAILURES_MAX)]).toEqual(['', '']);
    expect(lockWarning('sign_in', '2')).toEqual({ key: 'warning.attempts_left_other', params: { attempts: 2, minutes: 15 } });
    expect(lockWarning('sign_in', '1')).toEqual({ key: 'warning.attempts_left_one', params: { attempts: 1, minutes: 15 } });
    for (const forged of ['0', '5', '9', '-1', '2.5', '02', ['2'], undefined]) expect(lockWarning('sign_in', forged)).toBeNull();
    expect(lockWarning('locked', '2')).toBeNull();
  });
});
