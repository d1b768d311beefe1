/**
 * `node tools/run.js tools/bench/finance.ts [postings]`: what finance's reads cost on a hot account.
 * Seeds one merchant with `postings` payments (default 100,000) spread over last month, straight into
 * the ledger tables as the ledger itself would write them (balanced entries, balance_after chained per
 * account, balances updated), then times over real HTTP, with a finance key, the merchant's statement
 * (first page, and a page from the middle of the month) and the month's fee revenue (the whole month, and
 * from noon to noon: the bounds farthest from a midnight, where the daily summary is corrected the most
 * from the postings), and prints the plans of their queries. Not part of `npm test`: timing belongs to
 * benchmarks.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { FEE_REVENUE_SQL } from '@pay/ledger-feature';
import { startEmbeddedPostgres } from '@pay/platform';
import { expectCall, mapConcurrent } from './http';
import { fmt, table, type Row } from './report';
import { spawnService } from './service';

const SAMPLES = 200;
const TARGET_MS = 200;
const PAGE = 100;
const CUSTOMERS = 20;
/** Payment amounts are multiples of 10 000 minor units, so that the default 150 bp fee is exact: 150 per 10 000. */
const AMOUNT_STEP = 10_000;
const FEE_PER_STEP = 150;
const AMOUNT_STEPS = 50;
const HALF_DAY_MS = 43_200_000;
const FEE_ACCOUNTS = ['DZD', 'MAD', 'TND', 'XOF'].map((c) => `platform:fees:${c}`);

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100_000);
  if (!Number.isInteger(count) || count < 2 * PAGE) throw new Error(`postings must be an integer of at least ${2 * PAGE}`);
  const dir = await mkdtemp(join(tmpdir(), 'bench-finance-'));
  await chmod(dir, 0o755); // PostgreSQL runs as its own user, who must reach the cluster below
  const database = await startEmbeddedPostgres(join(dir, 'pg'));
  const service = await spawnService({ databaseUrl: database.url, dataDir: join(dir, 'data') });
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    const admin = { key: service.adminKey };
    const integrator = (await expectCall(service.url, 'POST', '/admin/v1/integrators', 201, { ...admin, body: { name: 'finance bench' } })).body;
    const merchant: string = (
      await expectCall(service.url, 'POST', '/admin/v1/connections', 201, { ...admin, body: { integrator: integrator.id, kind: 'merchant', name: 'hot merchant', currency: 'DZD' } })
    ).body.id;
    // Customers (and their ledger accounts) through the API; their money is seeded below, dated before the month.
    const customers = await mapConcurrent(Array.from({ length: CUSTOMERS }, (_, i) => i), 4, async (i) => {
      const body = { name: `finance bench customer ${i}`, phone: `+213666${String(i).padStart(6, '0')}`, pin: '1234', currency: 'DZD' };
      return (await expectCall(service.url, 'POST', '/admin/v1/customers', 201, { ...admin, body })).body.id as string;
    });
    const finance = { key: (await expectCall(service.url, 'POST', '/admin/v1/finance_keys', 201, { ...admin, body: { name: 'finance bench' } })).body.api_key as string };

    const now = new Date();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1); // the month's last millisecond
    const started = Date.now();
    const seeded = await seed(db, { merchant, customers, count, from, to });
    console.log(`seeded ${count.toLocaleString('en')} payments to ${merchant} (${(3 * count + 2 * CUSTOMERS).toLocaleString('en')} postings) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const period = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const statementPath = `/admin/v1/ledger/accounts/${merchant}/statement?${period}&limit=${PAGE}`;
    const first = (await expectCall(service.url, 'GET', statementPath, 200, finance)).body;
    if (first.opening_balance !== 0 || first.lines.length !== PAGE) throw new Error(`first page: opening ${first.opening_balance}, ${first.lines.length} lines`);
    const middlePath = `${statementPath}&starting_after=${seeded.middleEntry}`;
    const middle = (await expectCall(service.url, 'GET', middlePath, 200, finance)).body;
    if (middle.opening_balance !== seeded.merchantThroughMiddle) throw new Error(`middle page opens with ${middle.opening_balance}, not ${seeded.merchantThroughMiddle}`);
    const revenuePath = `/admin/v1/ledger/fee_revenue?${period}`;
    const revenue = (await expectCall(service.url, 'GET', revenuePath, 200, finance)).body;
    const dzd = revenue.currencies.find((c: { currency: string }) => c.currency === 'DZD');
    if (dzd?.by_use_case.payment !== seeded.fees) throw new Error(`fee revenue ${JSON.stringify(revenue)}, expected ${seeded.fees} DZD of payments`);
    const [noonFrom, noonTo] = [new Date(from.getTime() + HALF_DAY_MS), new Date(to.getTime() + 1 - HALF_DAY_MS)];
    const noonPath = `/admin/v1/ledger/fee_revenue?from=${noonFrom.toISOString()}&to=${noonTo.toISOString()}`;
    const noon = (await expectCall(service.url, 'GET', noonPath, 200, finance)).body;
    const noonFees = await feesFromPostings(db, noonFrom, noonTo);
    if (noon.currencies.find((c: { currency: string }) => c.currency === 'DZD')?.by_use_case.payment !== noonFees) {
      throw new Error(`fee revenue from noon to noon ${JSON.stringify(noon)}, expected ${noonFees} DZD of payments`);
    }

    const rows: Row[] = [];
    for (const [label, path, check] of [
      ['statement, first page', statementPath, (b: { lines: unknown[] }) => b.lines.length === PAGE],
      ['statement, mid-month page', middlePath, (b: { lines: unknown[] }) => b.lines.length === PAGE],
      ['fee_revenue over the month', revenuePath, (b: { currencies: unknown[] }) => b.currencies.length > 0],
      ['fee_revenue, noon to noon', noonPath, (b: { currencies: unknown[] }) => b.currencies.length > 0],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const t0 = process.hrtime.bigint();
        const body = (await expectCall(service.url, 'GET', path, 200, finance)).body;
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!check(body)) throw new Error(`${label}: unexpected answer ${JSON.stringify(body).slice(0, 300)}`);
      }
      times.sort((a, b) => a - b);
      const [p50, p99] = [times[Math.floor(SAMPLES * 0.5)]!, times[Math.floor(SAMPLES * 0.99)]!];
      console.log(`${label.padEnd(30)} p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms`);
      rows.push({ figure: `${label}: p50 (ms)`, value: fmt(p50), target: '' });
      rows.push({ figure: `${label}: p99 (ms)`, value: fmt(p99), target: `< ${TARGET_MS}`, pass: p99 < TARGET_MS });
    }

    await explainQueries(db, { merchant, from, to, noonFrom, noonTo, middleEntry: seeded.middleEntry });
    process.stdout.write(`\nFinance reads on a hot account (${count.toLocaleString('en')} postings over ${from.toISOString().slice(0, 7)}, ${SAMPLES} sequential requests each)\n\n${table(rows)}\n`);
  } finally {
    await db.end();
    await service.stop();
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

interface Seeded {
  /** The entry of the payment in the middle of the month: the mid-month page starts after it. */
  middleEntry: string;
  /** The merchant's balance through that entry: the mid-month page's opening balance. */
  merchantThroughMiddle: number;
  /** Fees of the seeded payments: the month's fee revenue. */
  fees: number;
}

/** Fees of payments in [from, to] summed from the postings, as fee revenue was computed before the daily summary. */
async function feesFromPostings(db: Client, from: Date, to: Date): Promise<number> {
  const { rows } = await db.query<{ fees: string | null }>(
    `SELECT sum(p.amount) AS fees FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
     WHERE p.account_id = ANY ($3::text[]) AND p.direction = 'credit' AND p.created_at >= $1 AND p.created_at <= $2 AND e.kind = 'payment'`,
    [from, to, FEE_ACCOUNTS],
  );
  return Number(rows[0]!.fees ?? 0);
}

/**
 * One transaction, set-based: each customer topped up from platform:funding:DZD the day before the month
 * for exactly what it will pay, then `count` payments evenly over the month, each debiting a customer
 * the amount and crediting the merchant the net and platform:fees:DZD the fee. Entries are written in
 * time order, so their positions follow created_at; balance_after runs per account from its balance.
 * The fees are added to the daily fee revenue (ledger_fee_revenue_daily), as the ledger's write does.
 * Times are whole milliseconds, as the service writes them (its statement cursors are JS Dates).
 */
async function seed(db: Client, s: { merchant: string; customers: string[]; count: number; from: Date; to: Date }): Promise<Seeded> {
  await db.query('BEGIN');
  await db.query(
    `CREATE TEMP TABLE seed_entries ON COMMIT DROP AS
     SELECT 'je_fin' || lpad(g::text, 21, '0') AS id, 'pay_fin' || lpad(g::text, 21, '0') AS reference, 'payment' AS kind,
       ($1::text[])[1 + g % cardinality($1::text[])] AS customer,
       $3::bigint * (1 + g % $4) AS amount, $5::bigint * (1 + g % $4) AS fee,
       date_trunc('milliseconds', $6::timestamptz + ($7::timestamptz - $6::timestamptz) * (g - 1) / $2) AS created_at, g
     FROM generate_series(1, $2::int) g`,
    [s.customers, s.count, AMOUNT_STEP, AMOUNT_STEPS, FEE_PER_STEP, s.from, s.to],
  );
  await db.query(
    `INSERT INTO seed_entries (id, reference, kind, customer, amount, fee, created_at, g)
     SELECT 'je_fintop' || lpad(row_number() OVER (ORDER BY customer)::text, 18, '0'), 'top_fin' || lpad(row_number() OVER (ORDER BY customer)::text, 21, '0'),
       'topup', customer, sum(amount), 0, $1::timestamptz - interval '1 day', -row_number() OVER (ORDER BY customer)
     FROM seed_entries GROUP BY customer`,
    [s.from],
  );
  await db.query(
    `INSERT INTO ledger_operations (operation_id, request_hash, outcome, created_at)
     SELECT reference, md5(reference),
       CASE WHEN kind = 'topup' THEN jsonb_build_object('id', reference, 'object', 'topup', 'account', customer, 'amount', amount, 'currency', 'DZD', 'created_at', created_at)
       ELSE jsonb_build_object('status', 'completed', 'entryId', id, 'feeAmount', fee, 'netAmount', amount - fee, 'debitedAmount', amount, 'createdAt', created_at) END,
       created_at
     FROM seed_entries`,
  );
  await db.query(`INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at) SELECT id, reference, reference, kind, created_at FROM seed_entries ORDER BY created_at, g`);
  await db.query(
    `INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
     SELECT p.entry_id, p.seq, p.account_id, p.direction, p.amount, 'DZD', 'txn_' || substr(md5(p.entry_id || ':' || p.seq), 1, 24),
       a.balance + sum(CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END) OVER (PARTITION BY p.account_id ORDER BY p.position, p.seq),
       p.position, p.created_at
     FROM (
       SELECT e.id AS entry_id, e.position, e.created_at, x.seq, x.account_id, x.direction, x.amount
       FROM seed_entries s JOIN ledger_entries e ON e.id = s.id
       CROSS JOIN LATERAL (VALUES
         (1, CASE WHEN s.kind = 'topup' THEN 'platform:funding:DZD' ELSE s.customer END, 'debit', s.amount),
         (2, CASE WHEN s.kind = 'topup' THEN s.customer ELSE $1 END, 'credit', s.amount - s.fee),
         (3, 'platform:fees:DZD', 'credit', s.fee)
       ) AS x (seq, account_id, direction, amount)
       WHERE x.amount > 0
     ) p JOIN ledger_accounts a ON a.id = p.account_id`,
    [s.merchant],
  );
  await db.query(
    `UPDATE ledger_accounts a SET balance = a.balance + d.delta
     FROM (SELECT p.account_id, sum(CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END) AS delta
           FROM ledger_postings p JOIN seed_entries s ON s.id = p.entry_id GROUP BY p.account_id) d
     WHERE a.id = d.account_id`,
  );
  await db.query(
    `INSERT INTO ledger_fee_revenue_daily AS f (day, currency, kind, amount, postings)
     SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency, s.kind, sum(p.amount), count(*)
     FROM ledger_postings p JOIN seed_entries s ON s.id = p.entry_id
     WHERE p.account_id = ANY ($1::text[]) AND p.direction = 'credit'
     GROUP BY 1, 2, 3
     ON CONFLICT (day, currency, kind) DO UPDATE SET amount = f.amount + excluded.amount, postings = f.postings + excluded.postings`,
    [FEE_ACCOUNTS],
  );
  // The ledger's invariants, checked before committing: books balance, balances end their chains, the
  // daily fee revenue is the fee postings summed per day.
  const { rows: broken } = await db.query(
    `SELECT 'unbalanced' AS problem FROM ledger_postings GROUP BY currency HAVING sum(amount) FILTER (WHERE direction = 'debit') <> sum(amount) FILTER (WHERE direction = 'credit')
     UNION ALL
     SELECT 'balance of ' || a.id FROM ledger_accounts a
     WHERE a.balance <> coalesce((SELECT balance_after FROM ledger_postings p WHERE p.account_id = a.id ORDER BY entry_position DESC, seq DESC LIMIT 1), 0)
     UNION ALL
     SELECT 'fee revenue of ' || d.day FROM (
       (SELECT day, currency, kind, amount, postings FROM ledger_fee_revenue_daily
        EXCEPT
        SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency::text, e.kind, sum(p.amount)::bigint, count(*)
        FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
        WHERE p.account_id = ANY ($1::text[]) AND p.direction = 'credit' GROUP BY 1, 2, 3)
       UNION ALL
       (SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency::text, e.kind, sum(p.amount)::bigint, count(*)
        FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
        WHERE p.account_id = ANY ($1::text[]) AND p.direction = 'credit' GROUP BY 1, 2, 3
        EXCEPT
        SELECT day, currency, kind, amount, postings FROM ledger_fee_revenue_daily)
     ) d`,
    [FEE_ACCOUNTS],
  );
  if (broken.length > 0) throw new Error(`seeding broke the ledger: ${broken.map((r) => r.problem).join(', ')}`);
  const middle = Math.floor(s.count / 2);
  const { rows } = await db.query<{ id: string; through: string; fees: string }>(
    `SELECT (SELECT id FROM seed_entries WHERE g = $1) AS id,
       (SELECT sum(amount - fee) FROM seed_entries WHERE kind = 'payment' AND g <= $1) AS through,
       (SELECT sum(fee) FROM seed_entries) AS fees`,
    [middle],
  );
  await db.query('COMMIT');
  // Entries written straight in SQL have no place in the hash chain yet: the running ledger seals them
  // (a second at most to start, then a thousand per transaction). Waited for here, so that the sealing's
  // updates are behind the VACUUM and not in the timed reads.
  for (;;) {
    const { rows: unsealed } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries WHERE sequence IS NULL');
    if (unsealed[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // As autovacuum would have by the end of a month: statistics, and the visibility map that lets the
  // statement's sums read the index alone.
  await db.query('VACUUM (ANALYZE) ledger_operations, ledger_entries, ledger_postings, ledger_accounts, ledger_fee_revenue_daily');
  return { middleEntry: rows[0]!.id, merchantThroughMiddle: Number(rows[0]!.through), fees: Number(rows[0]!.fees) };
}

/** The queries behind the three routes, as FinanceReads sends them (same text and parameters). */
async function explainQueries(db: Client, q: { merchant: string; from: Date; to: Date; noonFrom: Date; noonTo: Date; middleEntry: string }): Promise<void> {
  const cursor = (await db.query('SELECT created_at, entry_position, seq FROM ledger_postings WHERE account_id = $1 AND entry_id = $2', [q.merchant, q.middleEntry])).rows[0];
  const statementLines = (lowerBound: string) =>
    `SELECT p.entry_id, e.reference, e.kind, p.created_at, p.direction, p.amount
     FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
     WHERE p.account_id = $1 AND ${lowerBound} ORDER BY p.created_at, p.entry_position, p.seq LIMIT ${PAGE + 1}`;
  const plans: [string, string, unknown[]][] = [
    [
      'statement, first page: opening balance',
      `SELECT coalesce(sum(CASE WHEN direction = 'credit' THEN amount ELSE -amount END), 0) AS balance FROM ledger_postings WHERE account_id = $1 AND created_at < $2`,
      [q.merchant, q.from],
    ],
    ['statement, first page: lines', statementLines('p.created_at >= $2 AND p.created_at <= $3'), [q.merchant, q.from, q.to]],
    [
      'statement, mid-month page: opening balance (through the cursor)',
      `SELECT coalesce(sum(CASE WHEN direction = 'credit' THEN amount ELSE -amount END), 0) AS balance FROM ledger_postings
       WHERE account_id = $1 AND (created_at, entry_position, seq) <= ($2, $3::bigint, $4::smallint)`,
      [q.merchant, cursor.created_at, cursor.entry_position, cursor.seq],
    ],
    [
      'statement, mid-month page: lines',
      statementLines('(p.created_at, p.entry_position, p.seq) > ($2, $3::bigint, $4::smallint) AND p.created_at <= $5'),
      [q.merchant, cursor.created_at, cursor.entry_position, cursor.seq, q.to],
    ],
    ['fee_revenue over the month', FEE_REVENUE_SQL, [q.from.toISOString(), q.to.toISOString(), FEE_ACCOUNTS]],
    ['fee_revenue, noon to noon', FEE_REVENUE_SQL, [q.noonFrom.toISOString(), q.noonTo.toISOString(), FEE_ACCOUNTS]],
  ];
  for (const [label, sql, values] of plans) {
    const plan = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values);
    console.log(`\n-- ${label}\n${plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')}`);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
