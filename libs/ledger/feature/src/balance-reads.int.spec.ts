import { type Clock, newId } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, PROPERTY_TEST_TIMEOUT_MS } from '@pay/testing';
import { type Pool } from 'pg';
import { LEDGER_MIGRATIONS, LedgerService } from './index';
import { BALANCE_AS_OF_SQL, BALANCE_BEFORE_SQL, BALANCE_THROUGH_SQL, BALANCES_AT_SQL } from './finance-reads';

/**
 * A balance at an instant is one index lookup, whatever the account's number of postings: the last
 * posting at or before it carries the balance after it (balance_after). A merchant with many postings
 * (seeded set-based: a payment a minute) is read at instants across its history; each read returns
 * the sum of its movements up to then, and its plan reads one posting, never the account's history.
 */

const POSTINGS = 40_000;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE_MS = 60_000;

const now = START + POSTINGS * MINUTE_MS;
const clock: Clock = { now: () => new Date(now) };
let pool: Pool;
let ledger: LedgerService;
const merchant = newId('connection');

beforeAll(async () => {
  const url = await createTestDatabase('balance_reads');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 5, statementTimeoutMs: 30_000 });
  ledger = new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE);
  await ledger.openAccount({ owner: merchant, kind: 'connection', currency: 'DZD' });
  // Payment i credits the merchant i × 10 + 1 at START + i minutes, balanced by the funding account
  // (which may go below zero); balance_after is the merchant's running total as the ledger writes it.
  await pool.query(
    `WITH ops AS (
       INSERT INTO ledger_operations (operation_id, request_hash, outcome, created_at)
       SELECT 'op_seed_' || i, 'seed', '{}'::jsonb, $2::timestamptz + i * interval '1 minute' FROM generate_series(1, $3::int) AS i
     ), entries AS (
       INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at)
       SELECT 'je_seed_' || i, 'op_seed_' || i, 'pay_seed_' || i, 'payment', $2::timestamptz + i * interval '1 minute' FROM generate_series(1, $3::int) AS i
       RETURNING id, position, created_at
     )
     INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
     SELECT e.id, s.seq, CASE s.seq WHEN 1 THEN 'platform:funding:DZD' ELSE $1 END, CASE s.seq WHEN 1 THEN 'debit' ELSE 'credit' END,
       i * 10 + 1, 'DZD', 'txn_seed_' || i || '_' || s.seq,
       CASE s.seq WHEN 1 THEN -(5 * i * (i + 1) + i) ELSE 5 * i * (i + 1) + i END, e.position, e.created_at
     FROM entries e, LATERAL (SELECT substr(e.id, 9)::bigint AS i) n, (VALUES (1::smallint), (2::smallint)) AS s (seq)`,
    [merchant, new Date(START).toISOString(), POSTINGS],
  );
  await pool.query('ANALYZE ledger_postings, ledger_entries');
}, PROPERTY_TEST_TIMEOUT_MS);

afterAll(async () => {
  await pool.end();
});

/** The sum of payments 1..n: each credits i × 10 + 1. */
const creditedThrough = (n: number) => 5 * n * (n + 1) + n;
const instantOf = (n: number) => new Date(START + n * MINUTE_MS).toISOString();

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** The plan as run: every node, and the postings its scans returned (rows × loops). */
async function planOf(sql: string, values: unknown[]): Promise<{ nodes: PlanNode[]; postingsRead: number }> {
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
  const all = nodes(rows[0]!['QUERY PLAN'][0].Plan);
  const postingsRead = all.filter((n) => n['Relation Name'] === 'ledger_postings').reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
  return { nodes: all, postingsRead };
}

describe('a balance at an instant reads one posting, whatever the number of postings before it', () => {
  const late = POSTINGS - 10;

  it('as of a time (created_at <= t): the balance after the last posting at or before it', async () => {
    for (const n of [0, 1, 1234, late, POSTINGS]) expect(await ledger.finance.balanceAsOf(merchant, instantOf(n))).toBe(creditedThrough(n));
    const plan = await planOf(BALANCE_AS_OF_SQL, [merchant, instantOf(late)]);
    expect(plan.nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(plan.postingsRead).toBeLessThanOrEqual(1);
  });

  it("a statement's opening balance (created_at < from) and a later page's (through its cursor line)", async () => {
    const first = await ledger.finance.statement({ account: merchant, from: instantOf(late), to: instantOf(POSTINGS), limit: 3 });
    expect(first.opening_balance).toBe(creditedThrough(late - 1));
    expect(first.closing_balance).toBe(creditedThrough(late + 2));
    const second = await ledger.finance.statement({ account: merchant, from: instantOf(late), to: instantOf(POSTINGS), limit: 3, startingAfter: first.lines[2]!.entry });
    expect(second.opening_balance).toBe(first.closing_balance);
    expect(second.lines[0]!.balance_after).toBe(creditedThrough(late + 3));

    const before = await planOf(BALANCE_BEFORE_SQL, [merchant, instantOf(late)]);
    expect(before.nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(before.postingsRead).toBeLessThanOrEqual(1);
    const { rows } = await pool.query<{ created_at: Date; entry_position: string; seq: number }>('SELECT created_at, entry_position, seq FROM ledger_postings WHERE entry_id = $1 AND seq = 2', [`je_seed_${late}`]);
    const through = await planOf(BALANCE_THROUGH_SQL, [merchant, rows[0]!.created_at, rows[0]!.entry_position, rows[0]!.seq]);
    expect(through.nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(through.postingsRead).toBeLessThanOrEqual(1);
  });
});

describe("a balance series (the console's chart) reads a bounded part of the account's history", () => {
  it('a period with many movements: the balance at evenly spaced instants, one posting read per instant', async () => {
    const [from, to] = [instantOf(0), instantOf(POSTINGS)];
    const series = await ledger.finance.balanceSeries({ account: merchant, from, to, samples: 60 });
    expect(series.sampled).toBe(true);
    expect(series.points).toHaveLength(60);
    expect(series.opening).toBe(0);
    expect(series.points.at(-1)).toEqual({ at: to, balance: creditedThrough(POSTINGS) });
    expect(series.closing).toBe(creditedThrough(POSTINGS));
    for (const point of series.points) expect(point.balance).toBe(creditedThrough(Math.floor((Date.parse(point.at) - START) / MINUTE_MS)));
    const plan = await planOf(BALANCES_AT_SQL, [merchant, series.points.map((p) => p.at)]);
    expect(plan.nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(plan.postingsRead).toBeLessThanOrEqual(60);
  });

  it('a period with few movements: each one, with the balance after it', async () => {
    const series = await ledger.finance.balanceSeries({ account: merchant, from: instantOf(100), to: instantOf(104), samples: 60 });
    expect(series).toEqual({
      currency: 'DZD',
      opening: creditedThrough(99),
      closing: creditedThrough(104),
      totalDebits: 0,
      totalCredits: creditedThrough(104) - creditedThrough(99),
      points: [100, 101, 102, 103, 104].map((n) => ({ at: instantOf(n), balance: creditedThrough(n) })),
      sampled: false,
    });
  });
});
