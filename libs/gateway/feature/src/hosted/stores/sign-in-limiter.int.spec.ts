import { createPool, endPool, runMigrations } from '@pay/platform';
import { createTestDatabase, setUp } from '@pay/testing';
import { DAY_MS, HOUR_MS, SIGN_IN_ADDRESS_FAILURES_MAX, SIGN_IN_FAILURES_MAX, SIGN_IN_GLOBAL_FAILURES_MAX, SIGN_IN_LOCK_MS } from '@pay/kernel';
import type { Pool } from 'pg';
import { GATEWAY_MIGRATIONS } from '../../gateway.module';
import { HANDOVER_POLICY, SIGN_IN_POLICY, SignInLimiter } from './sign-in-limiter';

/**
 * The lockout holds under parallel guesses (each attempt is counted before its secret is checked),
 * over time (locks grow, their end does not reset the count) and across logins (per client address and
 * over the whole service).
 */
describe('sign-in limiter', () => {
  let pool: Pool;
  let limiter: SignInLimiter;

  setUp(async () => {
    const url = await createTestDatabase('signin');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    // 200 parallel sign-ins queue for 20 connections: on a busy machine longer than a service would wait.
    pool = createPool(url, { max: 20, statementTimeoutMs: 30_000, connectionTimeoutMs: 120_000 });
    limiter = new SignInLimiter(pool);
  });
  afterAll(async () => {
    if (pool) await endPool(pool);
  });
  // Each test starts with the address and service windows empty (their own tests fill them).
  beforeEach(() => pool.query('DELETE FROM gw_sign_in_rates'));

  let checks = 0;
  /** A sign-in as the pages make it; `checks` counts the secrets actually checked. */
  const signIn = async (login: string, right: boolean, address = '192.0.2.1'): Promise<string> => {
    const outcome = await limiter.signIn(login, address, async () => {
      checks++;
      return right ? { id: login } : undefined;
    });
    return 'subject' in outcome ? 'session' : outcome.refused;
  };

  /** The handover form's use of the limiter: count, check, record. */
  const guess = async (login: string, right: boolean): Promise<'session' | 'wrong' | 'locked' | 'refused'> => {
    if (!(await limiter.attempt(login))) return 'refused';
    if (right) {
      await limiter.succeeded(login);
      return 'session';
    }
    return (await limiter.failed(login)) ? 'locked' : 'wrong';
  };

  const lockOf = async (login: string) => {
    const { rows } = await pool.query<{ locked_until: Date | null; locks: number; failures: number }>('SELECT locked_until, locks, failures FROM gw_sign_in_attempts WHERE login = $1', [login]);
    return rows[0]!;
  };
  /** The lock's time has passed (a timed lock only). */
  const expire = (login: string) => pool.query(`UPDATE gw_sign_in_attempts SET locked_until = now() - interval '1 second' WHERE login = $1 AND locked_until <> 'infinity'`, [login]);
  /** How long the login stays locked; node-postgres reads 'infinity' as Infinity. */
  const lockedForMs = async (login: string) => {
    const until = (await lockOf(login)).locked_until as Date | number;
    return until === Infinity ? Infinity : (until as Date).getTime() - Date.now();
  };

  it('200 parallel guesses on one login, from as many addresses: at most five secrets are checked, the right one gets no session', async () => {
    const login = 'customer:+213555000150';
    checks = 0;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn(login, i === 150, `198.51.100.${i}`)));
    expect(outcomes).not.toContain('session');
    expect(checks).toBeLessThanOrEqual(SIGN_IN_FAILURES_MAX);
    expect((await lockOf(login)).failures).toBe(SIGN_IN_FAILURES_MAX);
    await pool.query('DELETE FROM gw_sign_in_rates');
    expect(await signIn(login, true)).toBe('locked');
  });

  it('locks grow: 15 minutes, 1 hour, 24 hours, then until reset; a lock’s end does not reset the count', async () => {
    const login = 'customer:+213555000151';
    // From many addresses, as a patient attacker would (one address is limited on its own, below).
    let address = 0;
    const wrongs = async (n: number) => {
      const outcomes: string[] = [];
      for (let i = 0; i < n; i++) outcomes.push(await signIn(login, false, `198.51.100.${address++}`));
      return outcomes;
    };
    expect(await wrongs(SIGN_IN_FAILURES_MAX)).toEqual([...Array(SIGN_IN_FAILURES_MAX - 1).fill('sign_in'), 'locked']);
    expect(await lockedForMs(login)).toBeGreaterThan(SIGN_IN_LOCK_MS - 60_000);
    expect(await lockedForMs(login)).toBeLessThanOrEqual(SIGN_IN_LOCK_MS);
    await expire(login);
    // The count goes on: five more failures, not a fresh start, and the next lock is an hour.
    expect(await wrongs(SIGN_IN_FAILURES_MAX)).toEqual([...Array(SIGN_IN_FAILURES_MAX - 1).fill('sign_in'), 'locked_longer']);
    expect(await lockedForMs(login)).toBeGreaterThan(HOUR_MS - 60_000);
    expect(await signIn(login, true)).toBe('locked_longer');
    await expire(login);
    expect(await wrongs(SIGN_IN_FAILURES_MAX)).toEqual([...Array(SIGN_IN_FAILURES_MAX - 1).fill('sign_in'), 'locked_longer']);
    expect(await lockedForMs(login)).toBeGreaterThan(DAY_MS - 60_000);
    await expire(login);
    expect(await wrongs(SIGN_IN_FAILURES_MAX)).toEqual([...Array(SIGN_IN_FAILURES_MAX - 1).fill('sign_in'), 'locked_until_reset']);
    expect(await lockedForMs(login)).toBe(Infinity);
    expect(await signIn(login, true)).toBe('locked_until_reset');
    await limiter.reset([login]);
    expect(await signIn(login, true)).toBe('session');
  });

  it('a success clears the count; a timed lock ends after its time', async () => {
    const login = 'usr:accountant';
    for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await signIn(login, false)).toBe('sign_in');
    expect(await signIn(login, true)).toBe('session');
    for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await signIn(login, false)).toBe('sign_in');
    expect(await signIn(login, false)).toBe('locked');
    await expire(login);
    expect(await signIn(login, true)).toBe('session');
    // The success started the ladder again: five more failures lock for 15 minutes, not longer.
    for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await signIn(login, false)).toBe('sign_in');
    expect(await signIn(login, false)).toBe('locked');
  });

  it('a failure recorded during a lock never lifts or shortens it', async () => {
    const login = 'agent:night-shift';
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) await signIn(login, false);
    const before = await lockOf(login);
    expect(before.locked_until!.getTime()).toBeGreaterThan(Date.now());
    await limiter.failed(login, SIGN_IN_POLICY);
    expect(await signIn(login, false)).toBe('locked');
    const after = await lockOf(login);
    expect(after.locked_until!.getTime()).toBe(before.locked_until!.getTime());
    expect(after.locks).toBe(1);
    expect(await signIn(login, true)).toBe('locked');
  });

  it('an attempt whose outcome is never recorded (its process died) counts as a failure once a minute has passed', async () => {
    const login = 'agent:crashed';
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) expect(await limiter.attempt(login, SIGN_IN_POLICY)).toBe(true);
    expect(await limiter.attempt(login, SIGN_IN_POLICY)).toBe(false); // the fifth may still be in flight
    expect((await lockOf(login)).locked_until).toBeNull();
    await pool.query(`UPDATE gw_sign_in_attempts SET updated_at = now() - interval '2 minutes' WHERE login = $1`, [login]);
    expect(await signIn(login, true)).toBe('locked');
    expect(await lockedForMs(login)).toBeGreaterThan(SIGN_IN_LOCK_MS - 60_000);
  });

  it('an attempt whose row a parallel success deletes (a double tap of the right code) is counted, not refused', async () => {
    const login = 'double-tap';
    expect(await guess(login, false)).toBe('wrong');
    // The first tap's success deletes the row while the second tap's count waits on it.
    const first = await pool.connect();
    try {
      await first.query('BEGIN');
      await first.query('SELECT 1 FROM gw_sign_in_attempts WHERE login = $1 FOR UPDATE', [login]);
      const second = limiter.attempt(login);
      await waitUntilBlocked();
      await first.query('DELETE FROM gw_sign_in_attempts WHERE login = $1', [login]);
      await first.query('COMMIT');
      expect(await second).toBe(true);
    } finally {
      first.release();
    }
    expect((await lockOf(login)).failures).toBe(1);
  });

  /** Until a statement of the service waits on a row lock. */
  const waitUntilBlocked = async () => {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('no statement waited on the row lock within 5 s');
  };

  it('handover codes: 15 minutes every five failures, never longer, never until reset', async () => {
    const login = 'handover:col_1';
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await guess(login, false)).toBe('wrong');
      expect(await guess(login, false)).toBe('locked');
      expect(await guess(login, true)).toBe('refused');
      expect(await lockedForMs(login)).toBeLessThanOrEqual(HANDOVER_POLICY.locksMs[0]!);
      await expire(login);
    }
    expect(await guess(login, true)).toBe('session');
  });

  it(`one address: ${SIGN_IN_ADDRESS_FAILURES_MAX} failed sign-ins over any logins, then refused without a check; other addresses and successes go on`, async () => {
    const address = '203.0.113.7';
    for (let i = 0; i < 3 * SIGN_IN_ADDRESS_FAILURES_MAX; i++) expect(await signIn(`customer:+21355501${i}`, true, address)).toBe('session');
    for (let i = 0; i < SIGN_IN_ADDRESS_FAILURES_MAX; i++) expect(await signIn(`customer:+21355502${i}`, false, address)).toBe('sign_in');
    checks = 0;
    expect(await signIn('customer:+213555030000', false, address)).toBe('address_limited');
    expect(await signIn('customer:+213555030001', true, address)).toBe('address_limited');
    expect(checks).toBe(0);
    expect(await signIn('customer:+213555030001', true, '203.0.113.8')).toBe('session');
  });

  it(`200 parallel guesses across phones from one address: at most ${SIGN_IN_ADDRESS_FAILURES_MAX} checked`, async () => {
    checks = 0;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn(`customer:+21355504${i}`, false, '203.0.113.9')));
    expect(checks).toBeLessThanOrEqual(SIGN_IN_ADDRESS_FAILURES_MAX);
    expect(outcomes.filter((o) => o === 'address_limited').length).toBeGreaterThanOrEqual(200 - SIGN_IN_ADDRESS_FAILURES_MAX);
  });

  it(`the whole service: ${SIGN_IN_GLOBAL_FAILURES_MAX} failed sign-ins in its window from any addresses, then every sign-in is paused`, async () => {
    checks = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 2 * SIGN_IN_GLOBAL_FAILURES_MAX }, (_, i) => signIn(`customer:+21355505${i}`, false, `10.${Math.floor(i / 250)}.${i % 250}.1`)),
    );
    expect(checks).toBeLessThanOrEqual(SIGN_IN_GLOBAL_FAILURES_MAX);
    expect(outcomes.filter((o) => o === 'paused').length).toBeGreaterThanOrEqual(SIGN_IN_GLOBAL_FAILURES_MAX);
    expect(await signIn('customer:+213555060000', true, '10.200.0.1')).toBe('paused');
    // The window ends: sign-ins go on.
    await pool.query(`UPDATE gw_sign_in_rates SET window_start = now() - interval '1 day'`);
    expect(await signIn('customer:+213555060000', true, '10.200.0.1')).toBe('session');
  });
});
