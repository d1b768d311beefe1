import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { runner } from 'node-pg-migrate';
import { type ExecuteTransfer, type FeeRevenueResource } from '@pay/contracts';
import { type Clock, CURRENCIES, type Currency, newId } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, PROPERTY_TEST_TIMEOUT_MS } from '@pay/testing';
import { type Pool } from 'pg';
import { LEDGER_MIGRATIONS, LedgerService } from './index';

/**
 * Fee revenue read from the daily summary (ledger_fee_revenue_daily, kept by the transfers) answers
 * exactly what summing the fee postings answers, for any period; replays count once; the migration's
 * backfill builds the summary the transfers keep.
 */

const DAY = 86_400_000;
const FEE_ACCOUNTS = CURRENCIES.map((currency) => `platform:fees:${currency}`);

/** The service clock: only ever moves forward, so every run's entries come after the previous run's. */
let now = Date.parse('2027-03-01T09:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };

let url: string;
let pool: Pool;
let ledger: LedgerService;

beforeAll(async () => {
  url = await createTestDatabase('fee_revenue');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 10, statementTimeoutMs: 10_000 });
  ledger = new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE);
});

afterAll(async () => {
  await pool.end();
});

/** The oracle: fee revenue as it was computed before the summary, every fee posting of the period joined to its entry. */
async function oracle(from: string, to: string): Promise<FeeRevenueResource> {
  const { rows } = await pool.query<{ currency: Currency; kind: string; total: string }>(
    `SELECT p.currency, e.kind, sum(p.amount) AS total
     FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
     WHERE p.account_id = ANY ($3::text[]) AND p.direction = 'credit' AND p.created_at >= $1 AND p.created_at <= $2
     GROUP BY p.currency, e.kind`,
    [from, to, FEE_ACCOUNTS],
  );
  const currencies = [...new Set(rows.map((r) => r.currency))].sort().map((currency) => {
    const byUseCase = { payment: 0, cash_payment: 0, supplier_payment: 0, settlement: 0 };
    for (const row of rows.filter((r) => r.currency === currency)) {
      if (row.kind in byUseCase) byUseCase[row.kind as keyof typeof byUseCase] += Number(row.total);
    }
    const total = rows.filter((r) => r.currency === currency).reduce((sum, r) => sum + Number(r.total), 0);
    return { currency, total, by_use_case: byUseCase };
  });
  return { object: 'fee_revenue', from, to, currencies };
}

type DailyRow = { day: string; currency: string; kind: string; amount: number; postings: number };
const DAILY_ORDER = 'ORDER BY day, currency, kind';
/** The summary as the postings make it: what the transfers must have kept and the backfill must build. */
const dailyFromPostings = async (): Promise<DailyRow[]> =>
  (
    await pool.query<DailyRow>(
      `SELECT to_char((p.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, p.currency::text AS currency, e.kind, sum(p.amount)::float8 AS amount, count(*)::float8 AS postings
       FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE p.account_id = ANY ($1::text[]) AND p.direction = 'credit'
       GROUP BY 1, 2, 3 ${DAILY_ORDER}`,
      [FEE_ACCOUNTS],
    )
  ).rows;
const dailySummary = async (): Promise<DailyRow[]> =>
  (await pool.query<DailyRow>(`SELECT to_char(day, 'YYYY-MM-DD') AS day, currency, kind, amount::float8 AS amount, postings::float8 AS postings FROM ledger_fee_revenue_daily ${DAILY_ORDER}`)).rows;
const dailyView = async (): Promise<DailyRow[]> =>
  (
    await pool.query<DailyRow>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, currency::text AS currency, use_case AS kind, amount::float8 AS amount, postings::float8 AS postings FROM finance.fee_revenue_daily ${DAILY_ORDER}`,
    )
  ).rows;

interface Accounts {
  currency: Currency;
  customers: string[];
  merchant: string;
  business: string;
  supplier: string;
  cashPoint: string;
}

async function openAccounts(currency: Currency): Promise<Accounts> {
  const open = async (owner: string, kind: 'customer' | 'connection' | 'beneficiary' | 'cash_point') => (await ledger.openAccount({ owner, kind, currency })).owner;
  const customers = [await open(newId('customer'), 'customer'), await open(newId('customer'), 'customer')];
  const accounts = {
    currency,
    customers,
    merchant: await open(newId('connection'), 'connection'),
    business: await open(newId('connection'), 'connection'),
    supplier: await open(newId('beneficiary'), 'beneficiary'),
    cashPoint: await open(`${newId('cashPoint')}:${currency}`, 'cash_point'),
  };
  for (const owner of [...customers, accounts.business]) await ledger.topup({ topupId: newId('topup'), owner, amount: 5_000_000, currency });
  // Cash at the cash point, for settlements: handed over by a carrier, then deposited.
  const cash = { reference: newId('collection'), feeMode: 'none' as const, amount: 5_000_000, currency };
  await ledger.transfer({ ...cash, operationId: newId('payment'), useCase: 'cash_handover', debitOwner: `platform:cash:${currency}`, creditOwner: `platform:cash_in_transit:${currency}` });
  await ledger.transfer({ ...cash, operationId: newId('payment'), useCase: 'cash_deposit', debitOwner: `platform:cash_in_transit:${currency}`, creditOwner: accounts.cashPoint });
  return accounts;
}

const OPERATIONS = [
  'payment',
  'cash_payment',
  'supplier_payment',
  'settlement',
  'refund',
  // A payment to the fee account itself (two fee credits in one entry), a refund into it and out of it.
  'payment_to_fees',
  'refund_to_fees',
  'refund_from_fees',
  'topup',
  'replay',
] as const;
type Operation = { kind: (typeof OPERATIONS)[number]; currency: number; party: number; amount: number; advance: Advance; withPrevious: boolean };
/** How the clock moves before an operation: often not at all, often onto a midnight or just beside it. */
type Advance = { ms: number } | { toMidnight: -1 | 0 | 1 };

const advance: fc.Arbitrary<Advance> = fc.oneof(
  fc.record({ ms: fc.constantFrom(0, 1, 2) }),
  fc.record({ ms: fc.integer({ min: 1, max: 2 * DAY }) }),
  fc.record({ toMidnight: fc.constantFrom(-1 as const, 0 as const, 1 as const) }),
);
const operation: fc.Arbitrary<Operation> = fc.record({
  kind: fc.constantFrom(...OPERATIONS),
  currency: fc.nat(1),
  party: fc.nat(3),
  amount: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 300_000 })),
  advance,
  withPrevious: fc.boolean(),
});

const moveClock = (step: Advance): void => {
  if ('ms' in step) now += step.ms;
  else now = Math.max(now + 1, (Math.floor(now / DAY) + 1) * DAY + step.toMidnight);
};

function perform(op: Operation, a: Accounts, previous: ExecuteTransfer | undefined): { run: () => Promise<unknown>; transfer?: ExecuteTransfer } {
  const { currency } = a;
  const customer = a.customers[op.party % a.customers.length]!;
  const fees = `platform:fees:${currency}`;
  const transfer = (useCase: ExecuteTransfer['useCase'], feeMode: ExecuteTransfer['feeMode'], debitOwner: string, creditOwner: string): ExecuteTransfer => ({
    operationId: newId('payment'),
    reference: newId('payment'),
    useCase,
    feeMode,
    debitOwner,
    creditOwner,
    amount: op.amount,
    currency,
  });
  let request: ExecuteTransfer;
  switch (op.kind) {
    case 'topup':
      return { run: () => ledger.topup({ topupId: newId('topup'), owner: customer, amount: op.amount, currency }) };
    case 'replay':
      // The same operation again (perhaps while the first is still running): answers its first outcome, counts nothing more.
      return { run: async () => (previous ? ledger.transfer(previous) : undefined) };
    case 'payment':
      request = transfer('payment', 'deducted', customer, a.merchant);
      break;
    case 'cash_payment':
      request = transfer('cash_payment', 'deducted', `platform:cash:${currency}`, a.merchant);
      break;
    case 'supplier_payment':
      request = transfer('supplier_payment', 'added', a.business, a.supplier);
      break;
    case 'settlement':
      request = transfer('settlement', 'deducted', a.cashPoint, a.merchant);
      break;
    case 'refund':
      request = transfer('refund', 'none', a.merchant, customer);
      break;
    case 'payment_to_fees':
      request = transfer('payment', 'deducted', customer, fees);
      break;
    case 'refund_to_fees':
      request = transfer('refund', 'none', a.merchant, fees);
      break;
    case 'refund_from_fees':
      request = transfer('refund', 'none', fees, customer);
      break;
  }
  const sent = request;
  return { run: () => ledger.transfer(sent), transfer: sent };
}

/** Runs the operations, a batch at a time: an operation `withPrevious` shares its batch's instant and runs concurrently with it. */
async function play(ops: readonly Operation[], accounts: Accounts[]): Promise<number[]> {
  const instants: number[] = [];
  let previous: ExecuteTransfer | undefined;
  let batch: (() => Promise<unknown>)[] = [];
  const flush = async () => {
    await Promise.all(batch.map((run) => run()));
    batch = [];
  };
  for (const op of ops) {
    if (!op.withPrevious || batch.length === 0) {
      await flush();
      moveClock(op.advance);
      instants.push(now);
    }
    const { run, transfer } = perform(op, accounts[op.currency % accounts.length]!, previous);
    batch.push(run);
    previous = transfer ?? previous;
  }
  await flush();
  return instants;
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** The last microsecond before `ms` (finer than the service's clock, as a direct caller may send). */
const microBefore = (ms: number): string => iso(ms - 1).replace('Z', '999Z');

/** Period bounds worth trying around the entries: midnights, noons (where the read rounds), the instants, each ± a little. */
function candidateBounds(instants: readonly number[], start: number): string[] {
  const times = new Set<number>([start - DAY, start - 1, now + 1, now + DAY]);
  for (const t of instants) {
    const midnight = Math.floor(t / DAY) * DAY;
    for (const base of [t, midnight, midnight + DAY, midnight + DAY / 2]) for (const delta of [-1, 0, 1]) times.add(base + delta);
  }
  const sorted = [...times].sort((x, y) => x - y);
  return [...sorted.map(iso), ...sorted.filter((t) => t % DAY === 0).map(microBefore)];
}

describe('fee revenue from the daily summary', () => {
  it('equals the sum of the fee postings for any period, and the summary equals the postings summed per day', async () => {
    const accounts: Accounts[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...CURRENCIES], { minLength: 2, maxLength: 2 }),
        fc.array(operation, { minLength: 5, maxLength: 25 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 4 * DAY })), { minLength: 8, maxLength: 12 }),
        async (currencies, ops, periods) => {
          now += DAY / 3;
          const start = now;
          accounts.length = 0;
          for (const currency of currencies) accounts.push(await openAccounts(currency as Currency));
          const instants = await play(ops, accounts);

          expect(await dailySummary()).toEqual(await dailyFromPostings());
          const bounds = candidateBounds(instants, start);
          for (const [i, j, span] of periods) {
            // Both bounds among the candidates, or `from` a candidate and `to` a random span after it; either order, or equal.
            const from = bounds[i % bounds.length]!;
            const to = span % 3 === 0 ? iso(Date.parse(from) + span) : bounds[j % bounds.length]!;
            expect(await ledger.finance.feeRevenue({ from, to })).toEqual(await oracle(from, to));
          }
        },
      ),
      { numRuns: 30 },
    );
    // Over everything written, and the view BI reads.
    const [first, last] = [iso(Date.parse('2027-03-01T00:00:00.000Z')), iso(now + 1)];
    expect(await ledger.finance.feeRevenue({ from: first, to: last })).toEqual(await oracle(first, last));
    expect(await dailyView()).toEqual(await dailyFromPostings());
  }, PROPERTY_TEST_TIMEOUT_MS);

  it('a posting a fraction of a millisecond before midnight is left out by a period that ends at the millisecond before it', async () => {
    now = (Math.floor(now / DAY) + 3) * DAY - 1; // 23:59:59.999
    const day = now - (DAY - 1);
    const [a] = [await openAccounts('DZD')];
    const outcome = await ledger.transfer({ operationId: newId('payment'), reference: newId('payment'), useCase: 'payment', feeMode: 'deducted', debitOwner: a!.customers[0]!, creditOwner: a!.merchant, amount: 100_000, currency: 'DZD' });
    expect(outcome).toMatchObject({ status: 'completed', feeAmount: 1_500 });
    // As another writer could date it (PostgreSQL keeps microseconds): 23:59:59.999500, the same day.
    await pool.query("UPDATE ledger_entries SET created_at = created_at + interval '500 microseconds' WHERE id = $1", [(outcome as { entryId: string }).entryId]);
    await pool.query("UPDATE ledger_postings SET created_at = created_at + interval '500 microseconds' WHERE entry_id = $1", [(outcome as { entryId: string }).entryId]);
    expect(await dailySummary()).toEqual(await dailyFromPostings());
    for (const [from, to] of [
      [iso(day), iso(now)],
      [iso(day), microBefore(now + 1)],
      [iso(now), iso(now)],
      [iso(now - DAY / 2), iso(now)],
      [iso(day + 1), microBefore(now + 1)],
    ] as const) {
      expect(await ledger.finance.feeRevenue({ from, to })).toEqual(await oracle(from, to));
    }
    const dzd = async (from: string, to: string) => (await ledger.finance.feeRevenue({ from, to })).currencies.find((c) => c.currency === 'DZD')?.total ?? 0;
    expect((await dzd(iso(day), microBefore(now + 1))) - (await dzd(iso(day), iso(now)))).toBe(1_500);
  });

  it('a replayed transfer, sequential or concurrent, counts once; a refused one not at all', async () => {
    now = (Math.floor(now / DAY) + 2) * DAY + 3_600_000;
    const a = await openAccounts('MAD');
    const row = async () =>
      (
        await pool.query<{ amount: number; postings: number }>(
          "SELECT amount::float8 AS amount, postings::float8 AS postings FROM ledger_fee_revenue_daily WHERE day = ($1::timestamptz AT TIME ZONE 'UTC')::date AND currency = 'MAD' AND kind = 'payment'",
          [iso(now)],
        )
      ).rows[0];
    expect(await row()).toBeUndefined();
    const request: ExecuteTransfer = { operationId: newId('payment'), reference: newId('payment'), useCase: 'payment', feeMode: 'deducted', debitOwner: a.customers[0]!, creditOwner: a.merchant, amount: 200_000, currency: 'MAD' };
    const outcomes = await Promise.all([ledger.transfer(request), ledger.transfer(request), ledger.transfer(request)]);
    expect(outcomes[0]).toMatchObject({ status: 'completed', feeAmount: 3_000 });
    for (const outcome of outcomes) expect(outcome).toEqual(outcomes[0]);
    expect(await row()).toEqual({ amount: 3_000, postings: 1 });
    now += 60_000;
    for (let i = 0; i < 3; i++) await expect(ledger.transfer(request)).resolves.toEqual(outcomes[0]);
    expect(await row()).toEqual({ amount: 3_000, postings: 1 });

    const refused: ExecuteTransfer = { ...request, operationId: newId('payment'), reference: newId('payment'), amount: 100_000_000 };
    await expect(ledger.transfer(refused)).resolves.toEqual({ status: 'rejected', reason: 'insufficient_balance' });
    await expect(ledger.transfer(refused)).resolves.toEqual({ status: 'rejected', reason: 'insufficient_balance' });
    const second: ExecuteTransfer = { ...request, operationId: newId('payment'), reference: newId('payment'), amount: 100_000 };
    await Promise.all([ledger.transfer(second), ledger.transfer(second)]);
    expect(await row()).toEqual({ amount: 4_500, postings: 2 });
    expect(await dailySummary()).toEqual(await dailyFromPostings());
  });
});

describe('migration 005', () => {
  const migrate = (direction: 'up' | 'down', count: number) =>
    runner({ databaseUrl: url, dir: LEDGER_MIGRATIONS.dir, migrationsTable: 'pgmigrations_ledger', direction, count, checkOrder: true, log: () => undefined });

  it('down restores the view over the postings; up again backfills the summary the transfers kept, from the postings already written', async () => {
    const kept = await dailySummary();
    expect(kept.length).toBeGreaterThan(20);
    expect(kept).toEqual(await dailyFromPostings());

    // Down to just before 005: the migrations after it first.
    const migrations = readdirSync(LEDGER_MIGRATIONS.dir).filter((f) => /^\d+_.*\.sql$/.test(f)).sort();
    await migrate('down', migrations.length - migrations.findIndex((f) => f.startsWith('005_')));
    const { rows } = await pool.query<{ exists: boolean }>("SELECT to_regclass('public.ledger_fee_revenue_daily') IS NOT NULL AS exists");
    expect(rows[0]!.exists).toBe(false);
    expect(await dailyView()).toEqual(kept);

    await migrate('up', Infinity);
    expect(await dailySummary()).toEqual(kept);
    expect(await dailyView()).toEqual(kept);
    const [from, to] = ['2027-03-01T00:00:00.000Z', iso(now + 1)];
    expect(await ledger.finance.feeRevenue({ from, to })).toEqual(await oracle(from, to));
    // The transfers keep it from there.
    const a = await openAccounts('TND');
    await ledger.transfer({ operationId: newId('payment'), reference: newId('payment'), useCase: 'payment', feeMode: 'deducted', debitOwner: a.customers[1]!, creditOwner: a.merchant, amount: 40_000, currency: 'TND' });
    expect(await dailySummary()).toEqual(await dailyFromPostings());
  });
});
