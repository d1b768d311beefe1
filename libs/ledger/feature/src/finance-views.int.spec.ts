import { randomBytes } from 'node:crypto';
import { type ExecuteTransfer, type FeeRevenueResource } from '@pay/contracts';
import { type Clock, type Currency, iso, newId } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { Client, type Pool } from 'pg';
import { LEDGER_MIGRATIONS, LedgerService } from './index';

/** The service clock, set by the test: entries land on chosen days and on the edges of a day. */
let now = Date.parse('2026-11-20T09:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };
const at = (time: string) => (now = Date.parse(time));

const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'] as const;
const dayStart = (day: string) => `${day}T00:00:00.000Z`;
const dayEnd = (day: string) => `${day}T23:59:59.999Z`;

let url: string;
let pool: Pool;
let ledger: LedgerService;
/** The accounts the scenario moves, and the references of its entries. */
const accounts: string[] = [];
const references: string[] = [];

beforeAll(async () => {
  url = await createTestDatabase('finance_views');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 5, statementTimeoutMs: 10_000 });
  ledger = new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE);
  await postScenario();
});

afterAll(async () => {
  await pool.end();
});

const open = async (owner: string, kind: 'customer' | 'connection' | 'beneficiary' | 'cash_point', currency: Currency) => {
  await ledger.openAccount({ owner, kind, currency });
  accounts.push(owner);
  return owner;
};
const topup = async (owner: string, amount: number, currency: Currency) => {
  const topupId = newId('topup');
  await ledger.topup({ topupId, owner, amount, currency });
  references.push(topupId);
};
const move = async (useCase: ExecuteTransfer['useCase'], debitOwner: string, creditOwner: string, amount: number, currency: Currency) => {
  const reference = newId('payment');
  const feeMode = useCase === 'supplier_payment' ? 'added' : ['payment', 'cash_payment', 'settlement'].includes(useCase) ? 'deducted' : 'none';
  const outcome = await ledger.transfer({ operationId: newId('payment'), reference, useCase, feeMode, debitOwner, creditOwner, amount, currency });
  if (outcome.status !== 'completed') throw new Error(`${useCase} ${amount} ${currency}: ${outcome.reason}`);
  references.push(reference);
};

/** Every use case over three days, in two currencies, with entries on both sides of midnight. */
async function postScenario(): Promise<void> {
  const customer = await open(newId('customer'), 'customer', 'DZD');
  const madCustomer = await open(newId('customer'), 'customer', 'MAD');
  const merchant = await open(newId('connection'), 'connection', 'DZD');
  const madMerchant = await open(newId('connection'), 'connection', 'MAD');
  const business = await open(newId('connection'), 'connection', 'DZD');
  const supplier = await open(newId('beneficiary'), 'beneficiary', 'DZD');
  const cashPoint = await open(`${newId('cashPoint')}:DZD`, 'cash_point', 'DZD');
  accounts.push('platform:fees:DZD', 'platform:fees:MAD', 'platform:funding:DZD', 'platform:cash:DZD', 'platform:cash_in_transit:DZD');

  at('2026-11-20T09:00:00.000Z');
  await topup(customer, 10_000_000, 'DZD');
  await topup(madCustomer, 2_000_000, 'MAD');
  await topup(business, 500_000, 'DZD');
  at('2026-11-20T10:00:00.000Z');
  await move('payment', customer, merchant, 1_250_000, 'DZD');
  await move('payment', madCustomer, madMerchant, 300_000, 'MAD');
  await move('supplier_payment', business, supplier, 100_000, 'DZD');
  at('2026-11-21T12:00:00.000Z');
  await move('refund', merchant, customer, 10_000, 'DZD');
  at('2026-11-21T23:59:59.999Z');
  await move('cash_payment', 'platform:cash:DZD', merchant, 50_000, 'DZD');
  at('2026-11-22T00:00:00.000Z');
  await move('payment', customer, merchant, 40_000, 'DZD');
  await move('cash_handover', 'platform:cash:DZD', 'platform:cash_in_transit:DZD', 80_000, 'DZD');
  await move('cash_deposit', 'platform:cash_in_transit:DZD', cashPoint, 80_000, 'DZD');
  at('2026-11-22T15:30:00.000Z');
  await move('settlement', cashPoint, merchant, 80_000, 'DZD');
  // Two payments at the same instant: the statement orders them by the order they were written.
  await Promise.all([move('payment', customer, merchant, 7_000, 'DZD'), move('payment', customer, merchant, 9_000, 'DZD')]);
}

describe('finance views: the same figures as the service reads', () => {
  it('finance.accounts lists every account as GET /admin/v1/ledger/accounts does', async () => {
    const { data, has_more } = await ledger.finance.accounts({ limit: 100 });
    expect(has_more).toBe(false);
    const { rows } = await pool.query<{ id: string; kind: string; currency: Currency; balance: number; created_at: Date }>(
      'SELECT id, kind, currency, balance, created_at FROM finance.accounts ORDER BY created_at DESC, id DESC',
    );
    expect(rows.map((r) => ({ object: 'ledger_account', id: r.id, kind: r.kind, currency: r.currency, balance: r.balance, created_at: iso(r.created_at) }))).toEqual(data);
    expect(data.map((a) => a.id)).toEqual(expect.arrayContaining(accounts));
  });

  it('finance.entries and the postings of each entry are the entries of each reference', async () => {
    for (const reference of references) {
      const { data } = await ledger.entries({ reference });
      const { rows: entries } = await pool.query<{ id: string; kind: string; created_at: Date }>('SELECT id, kind, created_at FROM finance.entries WHERE reference = $1 ORDER BY created_at, position', [reference]);
      expect(entries.map((e) => ({ id: e.id, kind: e.kind, created_at: iso(e.created_at) }))).toEqual(data.map((e) => ({ id: e.id, kind: e.kind, created_at: e.created_at })));
      for (const entry of data) {
        const { rows } = await pool.query('SELECT account_id AS account, direction, amount, currency FROM finance.postings WHERE entry_id = $1 ORDER BY seq', [entry.id]);
        expect(rows).toEqual(entry.postings);
      }
    }
  });

  it('finance.postings: running_balance is each statement line balance_after, opening included; balance_after is the balance transactions one', async () => {
    const [from, to] = [dayStart(DAYS[1]), dayEnd(DAYS[2])];
    for (const account of accounts) {
      const statement = await ledger.finance.statement({ account, from, to, limit: 1000 });
      const { rows } = await pool.query<{ entry_id: string; reference: string; kind: string; created_at: Date; direction: 'debit' | 'credit'; amount: number; running_balance: number }>(
        `SELECT entry_id, reference, kind, created_at, direction, amount, running_balance FROM finance.postings
         WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3 ORDER BY created_at, entry_position, seq`,
        [account, from, to],
      );
      expect(rows.map((r) => ({ entry: r.entry_id, reference: r.reference, kind: r.kind, created_at: iso(r.created_at), direction: r.direction, amount: r.amount, balance_after: r.running_balance }))).toEqual(
        statement.lines,
      );
      const before = await pool.query<{ running_balance: number }>(
        'SELECT running_balance FROM finance.postings WHERE account_id = $1 AND created_at < $2 ORDER BY created_at DESC, entry_position DESC, seq DESC LIMIT 1',
        [account, from],
      );
      expect(before.rows[0]?.running_balance ?? 0).toBe(statement.opening_balance);

      const history = await ledger.balanceTransactions.list({ owner: account, limit: 100 });
      const { rows: stored } = await pool.query<{ id: string; balance_after: number }>(
        'SELECT balance_transaction_id AS id, balance_after FROM finance.postings WHERE account_id = $1 ORDER BY entry_position DESC, seq DESC',
        [account],
      );
      expect(stored).toEqual(history.data.map((t) => ({ id: t.id, balance_after: t.balance_after })));
      const { rows: latest } = await pool.query<{ running_balance: number; balance: number }>(
        `SELECT p.running_balance, a.balance FROM finance.postings p JOIN finance.accounts a ON a.id = p.account_id
         WHERE p.account_id = $1 ORDER BY p.created_at DESC, p.entry_position DESC, p.seq DESC LIMIT 1`,
        [account],
      );
      expect(latest[0]?.running_balance).toBe(latest[0]?.balance);
    }
  });

  it('finance.fee_revenue_daily adds up to fee_revenue for each day and for the whole period', async () => {
    const fromView = async (from: string, to: string): Promise<FeeRevenueResource['currencies']> => {
      const { rows } = await pool.query<{ currency: Currency; use_case: string; amount: number }>(
        'SELECT currency, use_case, amount FROM finance.fee_revenue_daily WHERE day >= $1::date AND day <= $2::date ORDER BY currency',
        [from, to],
      );
      return [...new Set(rows.map((r) => r.currency))].map((currency) => {
        const byUseCase = { payment: 0, cash_payment: 0, supplier_payment: 0, settlement: 0 };
        let total = 0;
        for (const row of rows.filter((r) => r.currency === currency)) {
          total += row.amount;
          if (row.use_case in byUseCase) byUseCase[row.use_case as keyof typeof byUseCase] += row.amount;
        }
        return { currency, total, by_use_case: byUseCase };
      });
    };
    for (const day of DAYS) {
      const revenue = await ledger.finance.feeRevenue({ from: dayStart(day), to: dayEnd(day) });
      expect(revenue.currencies.length).toBeGreaterThan(0);
      expect(await fromView(day, day)).toEqual(revenue.currencies);
    }
    const period = await ledger.finance.feeRevenue({ from: dayStart(DAYS[0]), to: dayEnd(DAYS[2]) });
    expect(await fromView(DAYS[0], DAYS[2])).toEqual(period.currencies);
    // 1.5 % of 1 250 000 + 40 000 + 7 000 + 9 000; 1 % added to 100 000; 2 % of 50 000; 2.5 % of 80 000
    expect(period.currencies.find((c) => c.currency === 'DZD')).toEqual({
      currency: 'DZD',
      total: 18_750 + 600 + 105 + 135 + 1_000 + 1_000 + 2_000,
      by_use_case: { payment: 18_750 + 600 + 105 + 135, cash_payment: 1_000, supplier_payment: 1_000, settlement: 2_000 },
    });
  });
});

describe('finance_reader: the views and nothing else', () => {
  const login = `bi_${randomBytes(6).toString('hex')}`;
  let bi: Client;

  beforeAll(async () => {
    const password = randomBytes(18).toString('hex');
    await pool.query(`CREATE ROLE ${login} LOGIN PASSWORD '${password}' IN ROLE finance_reader`);
    const asLogin = new URL(url);
    asLogin.username = login;
    asLogin.password = password;
    bi = new Client({ connectionString: asLogin.toString() });
    await bi.connect();
  });

  afterAll(async () => {
    await bi?.end();
    // Roles belong to the cluster, which other test files share.
    await pool.query(`DROP ROLE IF EXISTS ${login}`);
  });

  it('a login role in finance_reader reads every view', async () => {
    for (const view of ['finance.accounts', 'finance.entries', 'finance.postings', 'finance.fee_revenue_daily']) {
      const { rows } = await bi.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${view}`);
      expect(rows[0]!.count).toBeGreaterThan(0);
    }
    const { rows } = await bi.query<{ balance: number }>('SELECT balance FROM finance.accounts WHERE id = $1', ['platform:fees:DZD']);
    expect(rows[0]!.balance).toBe(23_590);
  });

  it.each([
    'SELECT * FROM public.ledger_postings',
    'SELECT * FROM public.ledger_accounts',
    'SELECT * FROM public.ledger_entries',
    'SELECT * FROM public.ledger_operations',
    'SELECT * FROM public.pgmigrations_ledger',
  ])('is refused the ledger tables: %s', async (sql) => {
    await expect(bi.query(sql)).rejects.toThrow(/permission denied/);
  });

  it.each([
    "INSERT INTO finance.accounts (id, kind, currency, created_at) VALUES ('cus_x', 'customer', 'DZD', now())",
    "UPDATE finance.accounts SET balance = 0 WHERE id = 'platform:fees:DZD'",
    'DELETE FROM finance.entries',
    "UPDATE finance.postings SET amount = 1 WHERE account_id = 'platform:fees:DZD'",
    "UPDATE public.ledger_accounts SET balance = 0 WHERE id = 'platform:fees:DZD'",
    "INSERT INTO public.ledger_operations (operation_id, request_hash, created_at) VALUES ('x', 'x', now())",
    'DELETE FROM public.ledger_postings',
    'CREATE TABLE finance.notes (note text)',
    'CREATE TABLE public.notes (note text)',
    'CREATE VIEW finance.copy AS SELECT 1 AS one',
  ])('cannot write anything: %s', async (sql) => {
    await expect(bi.query(sql)).rejects.toThrow(/permission denied|cannot (update|delete from) view/);
  });

  it('has no privilege on the tables at all, and nothing changed', async () => {
    const { rows } = await bi.query<{ privileged: boolean }>(
      `SELECT bool_or(has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')) AS privileged
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'S')`,
    );
    expect(rows[0]!.privileged).toBe(false);
    expect((await ledger.getBalance({ owner: 'platform:fees:DZD' })).available).toBe(23_590);
  });
});
