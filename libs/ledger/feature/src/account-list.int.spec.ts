import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { type Pool } from 'pg';
import { FinanceReads } from './finance-reads';
import { LEDGER_MIGRATIONS } from './index';

/**
 * The chart of accounts, paged with `starting_after`, lists every account exactly once, whatever the
 * page size: the platform's accounts are created by a migration's now() (microseconds), many in one
 * statement and so at one instant, and the service's accounts may share an instant too.
 */

let pool: Pool;
let reads: FinanceReads;

beforeAll(async () => {
  const url = await createTestDatabase('account_list');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 3, statementTimeoutMs: 10_000 });
  reads = new FinanceReads(pool);
  // More accounts than a page, all created in one statement (one instant, to the microsecond).
  await pool.query(
    `INSERT INTO ledger_accounts (id, kind, currency, allow_negative, created_at)
     SELECT 'conn_list_' || lpad(g::text, 3, '0') || ':DZD', 'connection', 'DZD', false, now() FROM generate_series(1, 40) AS g`,
  );
});

afterAll(async () => {
  await pool.end();
});

async function walk(limit: number, filters: { kind?: string; currency?: string } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let startingAfter: string | undefined, pages = 0; ; pages += 1) {
    expect(pages).toBeLessThan(200);
    const page = await reads.accounts({ ...filters, limit, ...(startingAfter === undefined ? {} : { startingAfter }) });
    ids.push(...page.data.map((a) => a.id));
    if (!page.has_more) return ids;
    startingAfter = page.data[page.data.length - 1]!.id;
  }
}

describe('paging the chart of accounts returns every account once', () => {
  it.each([1, 7, 50, 100])('pages of %i', async (limit) => {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM ledger_accounts');
    expect(rows.length).toBeGreaterThan(50);
    const ids = await walk(limit);
    expect(ids).toHaveLength(rows.length);
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it('with a filter, every account of the filter once', async () => {
    const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ledger_accounts WHERE currency = 'DZD'`);
    const ids = await walk(3, { currency: 'DZD' });
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
  });
});
