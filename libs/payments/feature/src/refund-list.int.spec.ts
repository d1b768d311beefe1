import type { Pool } from 'pg';
import { EVENT_STORE_MIGRATIONS } from '@pay/event-store';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { PAYMENTS_MIGRATIONS } from './payments.module';
import { listRefunds } from './refund-projection';

/**
 * The refunds list over a real PostgreSQL: newest first by created_at (the request's time), whatever order
 * the projection inserted the rows in (the order their streams committed, which concurrent refunds of one
 * payment do not keep), and paging neither skips nor repeats a row, ties on created_at included.
 */
describe('refund list order', () => {
  let pool: Pool;
  const integratorId = 'int_order';
  const BASE = Date.parse('2026-11-22T10:00:00.000Z');

  /** Rows in insertion (seq) order, each created `offsetMs` after BASE. */
  const insert = async (rows: Array<{ id: string; offsetMs: number; payment?: string; integrator?: string }>) => {
    for (const row of rows) {
      const createdAt = new Date(BASE + row.offsetMs).toISOString();
      const state = {
        status: 'succeeded',
        terms: { refundId: row.id, paymentId: row.payment ?? 'pay_one', integratorId: row.integrator ?? integratorId, amount: 1, currency: 'DZD', reason: null, createdAt },
      };
      await pool.query('INSERT INTO refund_views (refund_id, integrator_id, payment, created_at, state, revision) VALUES ($1, $2, $3, $4, $5, 1)', [
        row.id,
        row.integrator ?? integratorId,
        row.payment ?? 'pay_one',
        createdAt,
        state,
      ]);
    }
  };
  const ids = async (query: { limit: number; startingAfter?: string; payment?: string }) => {
    const list = await listRefunds(pool, { integratorId, limit: query.limit, ...(query.startingAfter ? { startingAfter: query.startingAfter } : {}), filters: query.payment ? { payment: query.payment } : {} });
    return { ids: list.data.map((r) => r.id), hasMore: list.has_more };
  };
  const pageThrough = async (limit: number, payment?: string) => {
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (let page = 0; page < 100; page++) {
      const { ids: pageIds, hasMore } = await ids({ limit, ...(startingAfter ? { startingAfter } : {}), ...(payment ? { payment } : {}) });
      seen.push(...pageIds);
      if (!hasMore) break;
      startingAfter = pageIds[pageIds.length - 1];
    }
    return seen;
  };

  beforeAll(async () => {
    const url = await createTestDatabase('refund_list');
    await runMigrations(url, [EVENT_STORE_MIGRATIONS, PAYMENTS_MIGRATIONS]);
    pool = createPool(url, { max: 2, statementTimeoutMs: 30_000 });
    // Inserted in the order of the probe's parallel refunds (created .722, .744, .712, .742, .742, .721, .719, .708).
    await insert([
      { id: 're_a', offsetMs: 722 },
      { id: 're_b', offsetMs: 744 },
      { id: 're_c', offsetMs: 712 },
      { id: 're_d', offsetMs: 742 },
      { id: 're_e', offsetMs: 742 },
      { id: 're_f', offsetMs: 721 },
      { id: 're_g', offsetMs: 719 },
      { id: 're_h', offsetMs: 708 },
      { id: 're_other_payment', offsetMs: 730, payment: 'pay_two' },
      { id: 're_other_integrator', offsetMs: 731, integrator: 'int_else' },
    ]);
  });
  afterAll(() => pool?.end());

  it('lists newest first by created_at, the later inserted first among equal times', async () => {
    expect((await ids({ limit: 100 })).ids).toEqual(['re_b', 're_e', 're_d', 're_other_payment', 're_a', 're_f', 're_g', 're_c', 're_h']);
    expect((await ids({ limit: 100, payment: 'pay_one' })).ids).toEqual(['re_b', 're_e', 're_d', 're_a', 're_f', 're_g', 're_c', 're_h']);
  });

  it('pages of every size neither skip nor repeat a refund, a tie on created_at across two pages included', async () => {
    const all = (await ids({ limit: 100 })).ids;
    for (const limit of [1, 2, 3, 4]) expect({ limit, seen: await pageThrough(limit) }).toEqual({ limit, seen: all });
    expect(await pageThrough(1, 'pay_one')).toEqual(all.filter((id) => id !== 're_other_payment'));
  });

  it('reads a page of thousands of refunds from the index in list order, without sorting (EXPLAIN)', async () => {
    await pool.query(
      `INSERT INTO refund_views (refund_id, integrator_id, payment, created_at, state, revision)
       SELECT 're_bulk' || n, 'int_bulk' || (n % 4), 'pay_bulk' || (n % 50), $1::timestamptz + (random() * interval '1 hour'), '{}'::jsonb, 1
       FROM generate_series(1, 20000) AS n`,
      [new Date(BASE).toISOString()],
    );
    await pool.query('ANALYZE refund_views');
    const plan = async (sql: string, values: unknown[]) => (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const { rows } = await pool.query<{ seq: string }>(`SELECT seq FROM refund_views WHERE refund_id = 're_bulk100'`);
    const unfiltered = await plan(
      `SELECT state FROM refund_views WHERE integrator_id = $1 AND (created_at, seq) < ((SELECT created_at FROM refund_views WHERE seq = $2), $2) ORDER BY created_at DESC, seq DESC LIMIT 11`,
      ['int_bulk0', rows[0]!.seq],
    );
    const byPayment = await plan(`SELECT state FROM refund_views WHERE integrator_id = $1 AND payment = $2 ORDER BY created_at DESC, seq DESC LIMIT 11`, ['int_bulk0', 'pay_bulk0']);
    expect(unfiltered).toMatch(/Index Scan using refund_views_list_by_time/);
    expect(byPayment).toMatch(/Index Scan using refund_views_by_payment_by_time/);
    for (const text of [unfiltered, byPayment]) expect(text).not.toMatch(/Sort|Seq Scan/);
  });
});
