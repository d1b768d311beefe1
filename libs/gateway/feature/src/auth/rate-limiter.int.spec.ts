import { createPool, endPool, runMigrations } from '@pay/platform';
import { createTestDatabase, setUp } from '@pay/testing';
import type { Pool } from 'pg';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { PostgresBuckets, RateLimiter } from './rate-limiter';

/** The per-key limit holds across gateways: two limiters (two gateways) share each key's bucket in PostgreSQL. */
describe('rate limiter shared by gateways', () => {
  let pool: Pool;
  let buckets: PostgresBuckets;
  /** A frozen clock: no refill of a gateway's copy during the test, so every admission is counted exactly. */
  const frozen = () => 0;
  const RATE = 5;
  /**
   * The shared bucket refills on the database's clock, which runs: the tokens it refilled since
   * `startedAt` may be admitted too. Well under one on a quiet machine (twelve round trips take
   * milliseconds), several on a loaded one.
   */
  const refilledSince = (startedAt: number) => Math.floor(((performance.now() - startedAt) / 1_000) * RATE);

  setUp(async () => {
    const url = await createTestDatabase('ratelimit');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 4, statementTimeoutMs: 10_000 });
    buckets = new PostgresBuckets(pool);
  });
  afterAll(async () => {
    if (pool) await endPool(pool);
  });

  it('one gateway alone: the burst (twice the rate), then 429 with the seconds to wait', async () => {
    const limiter = new RateLimiter(RATE, frozen, buckets);
    const startedAt = performance.now();
    const waits = [];
    for (let i = 0; i < 12; i++) {
      waits.push(limiter.take('key-alone'));
      await limiter.settled();
    }
    expect(waits.slice(0, 10)).toEqual(Array(10).fill(0));
    // Past the burst: refused (wait a second), unless the database's clock refilled a token meanwhile.
    const admittedPast = waits.slice(10).filter((w) => w === 0).length;
    expect(admittedPast).toBeLessThanOrEqual(refilledSince(startedAt));
    expect(waits.slice(10).filter((w) => w !== 0)).toEqual(Array(2 - admittedPast).fill(1));
  });

  it('two gateways taking turns admit one burst between them, not one each', async () => {
    const [a, b] = [new RateLimiter(RATE, frozen, buckets), new RateLimiter(RATE, frozen, buckets)];
    const startedAt = performance.now();
    let admitted = 0;
    for (let i = 0; i < 40; i++) {
      const gateway = i % 2 === 0 ? a : b;
      if (gateway.take('key-shared') === 0) admitted += 1;
      await gateway.settled();
    }
    // Each gateway learns the other's debits from its own debit's answer: at most one admission each on a stale copy.
    expect(admitted).toBeGreaterThanOrEqual(10);
    const refilled = refilledSince(startedAt);
    expect(admitted).toBeLessThanOrEqual(12 + refilled);
    const { rows } = await pool.query<{ tokens: number }>('SELECT tokens FROM gw_rate_limits WHERE key_id = $1', ['key-shared']);
    expect(rows[0]!.tokens).toBeLessThanOrEqual(refilled);
  });

  it('the shared bucket refills at the rate on the database clock and is capped at the burst', async () => {
    await pool.query(`INSERT INTO gw_rate_limits (key_id, tokens, refilled_at) VALUES ('key-refill', -3, now() - interval '1 hour')`);
    expect(await buckets.debit('key-refill', 5, 10)).toBe(9);
  });

  it('a debit that fails leaves the gateway deciding alone (never a refusal because of it)', async () => {
    const errors: unknown[] = [];
    const limiter = new RateLimiter(RATE, frozen, { debit: () => Promise.reject(new Error('database down')) }, (e) => errors.push(e));
    expect(limiter.take('key-down')).toBe(0);
    await limiter.settled();
    expect(errors).toHaveLength(1);
    expect(limiter.take('key-down')).toBe(0);
  });
});
