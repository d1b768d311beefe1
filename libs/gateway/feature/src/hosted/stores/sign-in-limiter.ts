import type { Pool } from 'pg';
import {
  MINUTE_MS,
  SECOND_MS,
  SIGN_IN_ADDRESS_FAILURES_MAX,
  SIGN_IN_ADDRESS_WINDOW_MS,
  SIGN_IN_FAILURES_MAX,
  SIGN_IN_GLOBAL_FAILURES_MAX,
  SIGN_IN_GLOBAL_WINDOW_MS,
  SIGN_IN_LOCK_MS,
  SIGN_IN_LOCKS_MS,
} from '@pay/kernel';

/** The limiter's login of an agent and of a business user: the sign-in pages count under it, a reset lifts it. */
export const agentSignInLogin = (login: string): string => `agent:${login}`;
export const businessUserSignInLogin = (login: string): string => `business_user:${login}`;

/** As the pages say it. */
export const SIGN_IN_LOCK_MINUTES = SIGN_IN_LOCK_MS / MINUTE_MS;

/** How a login's locks follow each other. */
export interface LockPolicy {
  /** The locks in turn; each comes after SIGN_IN_FAILURES_MAX more failures. */
  locksMs: readonly number[];
  /** After the last lock: locked until the secret is reset (`reset`), or that lock again. */
  untilReset: boolean;
  /** Failures that make a lock (SIGN_IN_FAILURES_MAX unless said). */
  failuresMax?: number;
}

/** People's sign-ins: 15 minutes, 1 hour, 24 hours, then until the admin API resets the PIN or password. */
export const SIGN_IN_POLICY: LockPolicy = { locksMs: SIGN_IN_LOCKS_MS, untilReset: true };
/** Handover codes (a collection's, typed by a signed-in carrier): 15 minutes every five failures. */
export const HANDOVER_POLICY: LockPolicy = { locksMs: [SIGN_IN_LOCK_MS], untilReset: false };

/** Why an attempt's secret is not checked (or why the login is locked after it). */
export type LockState = 'locked' | 'locked_longer' | 'locked_until_reset';
export type SignInRefusal = 'sign_in' | LockState | 'address_limited' | 'paused';

/** A sign-in page's `?error=` codes (or page) for each refusal. */
export const SIGN_IN_REFUSALS: readonly SignInRefusal[] = ['sign_in', 'locked', 'locked_longer', 'locked_until_reset', 'address_limited', 'paused'];

const GLOBAL_SCOPE = 'all';
/** A counted attempt whose outcome is not recorded after this never will be: it is taken as a failure. */
const IN_FLIGHT_MAX_MS = MINUTE_MS;

interface Admitted {
  /** The windows whose counts the attempt took, given back when it succeeds. */
  windows: { scope: string; windowStart: string }[];
}

/**
 * Wrong PINs, passwords or codes, counted in PostgreSQL so that every gateway shares the counts.
 *
 * Per login: five failures since the last success lock it for 15 minutes, five more for an hour, five
 * more for 24 hours, five more until its secret is reset (SIGN_IN_POLICY). A lock's end does not reset
 * the count; a success does. Every attempt is counted, in one statement, before its secret is checked:
 * of 200 parallel guesses, five are checked and the rest refused. A lock is never shortened.
 *
 * Per client address and over the whole service: failed sign-ins in a fixed window (20 an hour per
 * address, 100 in ten minutes in all). The same way: an attempt takes a place in each window before its
 * secret is checked, and gives it back when it succeeds, so parallel attempts never pass the limit.
 */
export class SignInLimiter {
  constructor(private readonly pool: Pool) {}

  /**
   * Counts an attempt and answers whether its secret may be checked: false while the login is locked,
   * and for every attempt past the current step's failures (the attempt that reaches it locks it).
   */
  async attempt(login: string, policy: LockPolicy = HANDOVER_POLICY): Promise<boolean> {
    return (await this.attemptLogin(login, policy)) === undefined;
  }

  /** The attempt's secret was wrong; true when the login is now locked. */
  async failed(login: string, policy: LockPolicy = HANDOVER_POLICY): Promise<boolean> {
    return (await this.failedLogin(login, policy)) !== undefined;
  }

  /** The attempt's secret was right: the count starts again (a lock set meanwhile stays). */
  async succeeded(login: string): Promise<void> {
    await this.pool.query('DELETE FROM gw_sign_in_attempts WHERE login = $1 AND (locked_until IS NULL OR locked_until <= now())', [login]);
  }

  /** The secret was reset (admin API): the logins' counts and locks, the lasting one included, are lifted. */
  async reset(logins: readonly string[]): Promise<void> {
    await this.pool.query('DELETE FROM gw_sign_in_attempts WHERE login = ANY($1::text[])', [logins]);
  }

  /**
   * One sign-in from `address`: the attempt counted for the address, the service and the login, then
   * `verify` (the secret checked) only if none refuses, then the outcome recorded. The subject signed
   * in, or why not (the page's `?error=` code, or the page to show).
   */
  async signIn<T>(login: string, address: string, verify: () => Promise<T | undefined>): Promise<{ subject: T } | { refused: SignInRefusal }> {
    const admitted = await this.admit(address);
    if ('refused' in admitted) return admitted;
    const locked = await this.attemptLogin(login, SIGN_IN_POLICY);
    if (locked) return { refused: locked };
    const subject = await verify();
    if (!subject) return { refused: (await this.failedLogin(login, SIGN_IN_POLICY)) ?? 'sign_in' };
    await this.succeeded(login);
    await this.giveBack(admitted);
    return { subject };
  }

  /**
   * Takes a place in the address's window, then in the service's (an address past its limit does not
   * touch the service's count); a refusal of the second gives the first back.
   */
  private async admit(address: string): Promise<Admitted | { refused: 'address_limited' | 'paused' }> {
    const scope = `address:${address}`;
    const mine = await this.take(scope, SIGN_IN_ADDRESS_FAILURES_MAX, SIGN_IN_ADDRESS_WINDOW_MS);
    if (!mine) return { refused: 'address_limited' };
    const all = await this.take(GLOBAL_SCOPE, SIGN_IN_GLOBAL_FAILURES_MAX, SIGN_IN_GLOBAL_WINDOW_MS);
    if (!all) {
      await this.giveBack({ windows: [{ scope, windowStart: mine }] });
      return { refused: 'paused' };
    }
    return { windows: [{ scope, windowStart: mine }, { scope: GLOBAL_SCOPE, windowStart: all }] };
  }

  /**
   * One place in the scope's current window (a new one once it ended): the window's start (as text, to
   * the microsecond, to be matched when the place is given back), or undefined
   * when it is full. Refused attempts are counted too (they are no success); one statement, so parallel
   * attempts queue on the row and at most `max` of them pass.
   */
  private async take(scope: string, max: number, windowMs: number): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ window_start: string; failures: number }>({
      name: 'gw-sign-in-rate-take',
      text: `INSERT INTO gw_sign_in_rates AS r (scope, window_start, failures) VALUES ($1, now(), 1)
             ON CONFLICT (scope) DO UPDATE SET
               window_start = CASE WHEN r.window_start + make_interval(secs => $2) <= now() THEN now() ELSE r.window_start END,
               failures = CASE WHEN r.window_start + make_interval(secs => $2) <= now() THEN 1 ELSE r.failures + 1 END
             RETURNING window_start::text, failures`,
      values: [scope, windowMs / SECOND_MS],
    });
    return rows[0]!.failures <= max ? rows[0]!.window_start : undefined;
  }

  /** A successful sign-in gives its places back, in windows that are still current. */
  private async giveBack(admitted: Admitted): Promise<void> {
    for (const { scope, windowStart } of admitted.windows) {
      await this.pool.query('UPDATE gw_sign_in_rates SET failures = failures - 1 WHERE scope = $1 AND window_start = $2::timestamptz AND failures > 0', [scope, windowStart]);
    }
  }

  /** Counts the login's attempt: undefined when its secret may be checked, else how the login is locked. */
  private async attemptLogin(login: string, policy: LockPolicy): Promise<LockState | undefined> {
    // A lock in force, or a step's last attempt still in flight (failures at the threshold), refuses
    // without counting. One statement: parallel attempts queue on the row and each re-reads it before its
    // condition, and a row a parallel success deletes meanwhile is inserted again (a double tap counts).
    const { rowCount } = await this.pool.query({
      name: 'gw-sign-in-attempt',
      text: `INSERT INTO gw_sign_in_attempts AS a (login, failures) VALUES ($1, 1)
             ON CONFLICT (login) DO UPDATE SET failures = a.failures + 1, updated_at = now()
             WHERE (a.locked_until IS NULL OR a.locked_until <= now()) AND a.failures < $2 * (a.locks + 1)`,
      values: [login, policy.failuresMax ?? SIGN_IN_FAILURES_MAX],
    });
    if (rowCount === 1) return undefined;
    // The step's last attempt never recorded its outcome (its process died, its check threw): its lock now.
    await this.lock(login, policy, IN_FLIGHT_MAX_MS);
    const row = await this.lockOf(login);
    // Not locked yet: the lock the attempt in flight is about to set.
    return row ? stateOf(row.locked ? row.locks : row.locks + 1, row.until_reset, policy) : 'locked';
  }

  private async lockOf(login: string): Promise<{ locks: number; locked: boolean; until_reset: boolean } | undefined> {
    const { rows } = await this.pool.query<{ locks: number; locked: boolean; until_reset: boolean }>({
      name: 'gw-sign-in-lock',
      text: `SELECT locks, coalesce(locked_until > now(), false) AS locked, coalesce(locked_until = 'infinity', false) AS until_reset FROM gw_sign_in_attempts WHERE login = $1`,
      values: [login],
    });
    return rows[0];
  }

  /** Records a wrong secret: the lock it sets (or that holds), or undefined when the login is not locked. */
  private async failedLogin(login: string, policy: LockPolicy): Promise<LockState | undefined> {
    await this.lock(login, policy, 0);
    const row = await this.lockOf(login);
    return row?.locked ? stateOf(row.locks, row.until_reset, policy) : undefined;
  }

  /** Sets the login's next lock if its step's failures are all counted, the last at least `afterMs` ago. */
  private async lock(login: string, policy: LockPolicy, afterMs: number): Promise<void> {
    await this.pool.query({
      name: 'gw-sign-in-lock-set',
      // The step's last failure sets the next lock; never while one holds (a lock is never shortened).
      text: `UPDATE gw_sign_in_attempts SET
               locks = locks + 1,
               locked_until = CASE WHEN $4 AND locks + 1 > cardinality($3::float8[]) THEN 'infinity'::timestamptz
                                   ELSE now() + make_interval(secs => ($3::float8[])[least(locks + 1, cardinality($3::float8[]))]) END,
               updated_at = now()
             WHERE login = $1 AND failures >= $2 * (locks + 1) AND (locked_until IS NULL OR locked_until <= now())
               AND updated_at <= now() - make_interval(secs => $5)`,
      values: [login, policy.failuresMax ?? SIGN_IN_FAILURES_MAX, policy.locksMs.map((ms) => ms / SECOND_MS), policy.untilReset, afterMs / SECOND_MS],
    });
  }
}

/** The page's word for the `locks`th lock of a login. */
const stateOf = (locks: number, untilReset: boolean, policy: LockPolicy): LockState =>
  untilReset || (policy.untilReset && locks > policy.locksMs.length) ? 'locked_until_reset' : locks <= 1 || policy.locksMs.length === 1 ? 'locked' : 'locked_longer';
