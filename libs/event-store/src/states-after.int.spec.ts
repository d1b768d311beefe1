import type { Pool } from 'pg';
import { createPool, statesAfter } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';

/**
 * Reconciliation reads every projection a page at a time, each page's cursor sent back over the bus
 * as the next request's `afterSeq` (a string in the contract: the payments app tells its payouts'
 * cursors from its payments' by a prefix). bigint columns arrive as numbers (pool.ts), so the cursor
 * must be made a string here: a number broke the payments app's second page once it had more than a page of payments.
 */
describe('statesAfter', () => {
  let pool: Pool;

  beforeAll(async () => {
    pool = createPool(await createTestDatabase('platform_states_after'), { max: 2, statementTimeoutMs: 10_000 });
    await pool.query('CREATE TABLE views (seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, state jsonb NOT NULL)');
    await pool.query(`INSERT INTO views (state) SELECT jsonb_build_object('n', n) FROM generate_series(1, 5) AS n`);
  });
  afterAll(() => pool.end());

  it('pages through every row with a string cursor, null after the last page', async () => {
    const seen: number[] = [];
    const cursors: unknown[] = [];
    for (let afterSeq: string | null = null; ; ) {
      const page: { states: { n: number }[]; nextAfterSeq: string | null } = await statesAfter<{ n: number }>(pool, 'views', afterSeq, 2);
      seen.push(...page.states.map((state) => state.n));
      if (page.nextAfterSeq === null) break;
      cursors.push(page.nextAfterSeq);
      // What crosses the bus: JSON, then the payments app's prefix check.
      afterSeq = JSON.parse(JSON.stringify(page.nextAfterSeq)) as string;
      expect(afterSeq.startsWith('payouts:')).toBe(false);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(cursors).toEqual(['2', '4']);
  });
});
