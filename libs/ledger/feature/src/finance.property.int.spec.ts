import fc from 'fast-check';
import { type ExecuteTransfer, type StatementResource } from '@pay/contracts';
import { type Clock, CURRENCIES, type Currency, newId } from '@pay/kernel';
import { allowsNegativeBalance, DEFAULT_FEE_SCHEDULE, planTransfer } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, PROPERTY_TEST_TIMEOUT_MS } from '@pay/testing';
import { type Pool } from 'pg';
import { TRANSFER_BATCH_SIZE_MAX } from '@pay/kernel';
import { LEDGER_MIGRATIONS, LedgerService } from './index';

/**
 * Finance's invariants over random sequences of ledger operations (every use case, refused ones,
 * replays, concurrent batches sharing an instant): balance transactions chain to the balance, every
 * statement page adds up and pages chain from the balance at `from` to the balance at `to`, and the
 * trial balance balances as of every instant.
 */

/** The service clock: only ever moves forward, so every run's entries come after the previous run's. */
let now = Date.parse('2027-01-01T00:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };

let pool: Pool;
let ledger: LedgerService;

beforeAll(async () => {
  const url = await createTestDatabase('finance_property');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 10, statementTimeoutMs: 10_000 });
  ledger = new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE);
});

afterAll(async () => {
  await pool.end();
});

const OPERATIONS = ['topup', 'payment', 'refund', 'supplier_payment', 'cash_payment', 'cash_handover', 'cash_deposit', 'settlement', 'replay'] as const;
type Operation = { kind: (typeof OPERATIONS)[number]; party: number; amount: number; advanceMs: number; withPrevious: boolean };

const operation: fc.Arbitrary<Operation> = fc.record({
  kind: fc.constantFrom(...OPERATIONS),
  party: fc.nat(5),
  amount: fc.integer({ min: 1, max: 500_000 }),
  // Often nothing: entries sharing an instant are ordered by the order they were written.
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 * 86_400_000 })),
  withPrevious: fc.boolean(),
});
/** Statement periods, as indices into the run's instants, and the page size to walk them with. */
const periods = fc.array(fc.record({ from: fc.nat(), to: fc.nat(), limit: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 3 });

interface Accounts {
  currency: Currency;
  customers: string[];
  merchants: string[];
  business: string;
  supplier: string;
  cashPoint: string;
  all: string[];
}

async function openAccounts(currency: Currency): Promise<Accounts> {
  const open = async (owner: string, kind: 'customer' | 'connection' | 'beneficiary' | 'cash_point') => (await ledger.openAccount({ owner, kind, currency })).owner;
  const customers = [await open(newId('customer'), 'customer'), await open(newId('customer'), 'customer'), await open(newId('customer'), 'customer')];
  const merchants = [await open(newId('connection'), 'connection'), await open(newId('connection'), 'connection')];
  const business = await open(newId('connection'), 'connection');
  const supplier = await open(newId('beneficiary'), 'beneficiary');
  const cashPoint = await open(`${newId('cashPoint')}:${currency}`, 'cash_point');
  const platform = ['fees', 'funding', 'cash', 'cash_in_transit'].map((kind) => `platform:${kind}:${currency}`);
  return { currency, customers, merchants, business, supplier, cashPoint, all: [...customers, ...merchants, business, supplier, cashPoint, ...platform] };
}

/** One operation through the service; a refused debit is an outcome, not an error. */
function perform(op: Operation, a: Accounts, previous: ExecuteTransfer | undefined): { run: () => Promise<unknown>; transfer?: ExecuteTransfer } {
  const { currency } = a;
  const customer = a.customers[op.party % a.customers.length]!;
  const merchant = a.merchants[op.party % a.merchants.length]!;
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
  let request: ExecuteTransfer | undefined;
  switch (op.kind) {
    case 'topup': {
      const owner = op.party % 4 === 3 ? a.business : customer;
      return { run: () => ledger.topup({ topupId: newId('topup'), owner, amount: op.amount, currency }) };
    }
    case 'replay':
      // The same operation again: answers its first outcome and moves nothing more.
      if (!previous) return { run: async () => undefined };
      return { run: () => ledger.transfer(previous) };
    case 'payment':
      request = transfer('payment', 'deducted', customer, merchant);
      break;
    case 'refund':
      request = transfer('refund', 'none', merchant, customer);
      break;
    case 'supplier_payment':
      request = transfer('supplier_payment', 'added', a.business, a.supplier);
      break;
    case 'cash_payment':
      request = transfer('cash_payment', 'deducted', `platform:cash:${currency}`, merchant);
      break;
    case 'cash_handover':
      request = transfer('cash_handover', 'none', `platform:cash:${currency}`, `platform:cash_in_transit:${currency}`);
      break;
    case 'cash_deposit':
      request = transfer('cash_deposit', 'none', `platform:cash_in_transit:${currency}`, a.cashPoint);
      break;
    case 'settlement':
      request = transfer('settlement', 'deducted', a.cashPoint, merchant);
      break;
  }
  const sent = request;
  return { run: () => ledger.transfer(sent), transfer: sent };
}

/** Runs the operations, a batch at a time: an operation `withPrevious` shares its batch's instant and runs concurrently with it. */
async function play(ops: readonly Operation[], a: Accounts): Promise<number[]> {
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
      now += op.advanceMs;
      instants.push(now);
    }
    const { run, transfer } = perform(op, a, previous);
    batch.push(run);
    previous = transfer ?? previous;
  }
  await flush();
  return instants;
}

/** An account's balance transactions, oldest first. */
async function historyOf(account: string) {
  const all = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await ledger.balanceTransactions.list({ owner: account, limit: 100, ...(startingAfter ? { startingAfter } : {}) });
    all.push(...page.data);
    if (!page.has_more) return all.reverse();
    startingAfter = page.data.at(-1)!.id;
  }
}

const balanceAt = async (owner: string, time: number) => (await ledger.getBalance({ owner, asOf: new Date(time).toISOString() })).available;

/** Every page of a statement, each following the previous one's last line. */
async function statementPages(account: string, from: string, to: string, limit: number): Promise<StatementResource[]> {
  const pages: StatementResource[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await ledger.finance.statement({ account, from, to, limit, ...(startingAfter ? { startingAfter } : {}) });
    pages.push(page);
    if (!page.has_more) return pages;
    startingAfter = page.lines.at(-1)!.entry;
  }
}

describe('finance invariants over random sequences of operations', () => {
  it('balance transactions, statements and the trial balance agree with the balances', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CURRENCIES), fc.array(operation, { minLength: 5, maxLength: 30, size: 'max' }), periods, async (currency, ops, chosen) => {
        now += 60_000;
        const start = now;
        const accounts = await openAccounts(currency);
        // Some money to move; the platform's cash accounts may go below zero, so cash moves from the start.
        for (const owner of [...accounts.customers, accounts.business]) await ledger.topup({ topupId: newId('topup'), owner, amount: 300_000, currency });
        const instants = await play(ops, accounts);

        for (const account of accounts.all) {
          const history = await historyOf(account);
          let balance = 0;
          for (const transaction of history) {
            balance += transaction.amount;
            expect(transaction.balance_after).toBe(balance);
            if (!allowsNegativeBalance(account)) expect(balance).toBeGreaterThanOrEqual(0);
          }
          expect((await ledger.getBalance({ owner: account })).available).toBe(balance);
        }

        const candidates = [start - 1, ...instants.flatMap((t) => [t - 1, t, t + 1]), now + 1];
        for (const period of chosen) {
          const [from, to] = [candidates[period.from % candidates.length]!, candidates[period.to % candidates.length]!].sort((x, y) => x - y) as [number, number];
          if (from === to) continue;
          for (const account of accounts.all) {
            const pages = await statementPages(account, new Date(from).toISOString(), new Date(to).toISOString(), period.limit);
            expect(pages[0]!.opening_balance).toBe(await balanceAt(account, from - 1)); // movements strictly before `from`
            let balance = pages[0]!.opening_balance;
            for (const page of pages) {
              expect(page.opening_balance).toBe(balance);
              expect(page.opening_balance + page.total_credits - page.total_debits).toBe(page.closing_balance);
              for (const line of page.lines) {
                balance += line.direction === 'credit' ? line.amount : -line.amount;
                expect(line.balance_after).toBe(balance);
                if (!allowsNegativeBalance(account)) expect(balance).toBeGreaterThanOrEqual(0);
              }
              expect(page.closing_balance).toBe(balance);
            }
            expect(pages.at(-1)!.closing_balance).toBe(await balanceAt(account, to));
            // No line skipped or repeated across pages: the account's movements in [from, to], each once.
            const lines = pages.flatMap((page) => page.lines.map((line) => `${line.created_at} ${line.reference} ${line.direction} ${line.amount}`));
            const moved = (await historyOf(account))
              .filter((t) => Date.parse(t.created_at) >= from && Date.parse(t.created_at) <= to)
              .map((t) => `${t.created_at} ${t.source} ${t.amount > 0 ? 'credit' : 'debit'} ${Math.abs(t.amount)}`);
            expect(lines.sort()).toEqual(moved.sort());
          }
        }

        for (const instant of candidates) {
          const { currencies } = await ledger.trialBalance({ asOf: new Date(instant).toISOString() });
          for (const line of currencies) expect(line.total_debits).toBe(line.total_credits);
        }
      }),
      { numRuns: 25 },
    );
  }, PROPERTY_TEST_TIMEOUT_MS);
});

describe('the time of an entry is when it moved the balances', () => {
  it('a transfer that waited for its accounts is dated after the entry it waited for: statements never show a customer below zero', async () => {
    now += 60_000;
    const customer = (await ledger.openAccount({ owner: newId('customer'), kind: 'customer', currency: 'DZD' })).owner;
    const merchant = (await ledger.openAccount({ owner: newId('connection'), kind: 'connection', currency: 'DZD' })).owner;
    const from = now;
    // Another transaction holds the merchant's account: the payment asked for at `from` waits for it.
    const holder = await pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM ledger_accounts WHERE id = $1 FOR NO KEY UPDATE', [merchant]);
    const payment = ledger.transfer({ operationId: newId('payment'), reference: newId('payment'), useCase: 'payment', feeMode: 'deducted', debitOwner: customer, creditOwner: merchant, amount: 1_000, currency: 'DZD' });
    await waitUntilBlocked(merchant);
    now += 1_000;
    await ledger.topup({ topupId: newId('topup'), owner: customer, amount: 1_000, currency: 'DZD' }); // what the payment will spend
    now += 1_000;
    await holder.query('COMMIT');
    holder.release();
    expect(await payment).toMatchObject({ status: 'completed' });

    const { lines } = await ledger.finance.statement({ account: customer, from: new Date(from).toISOString(), to: new Date(now).toISOString(), limit: 10 });
    expect(lines.map((line) => [line.direction, line.balance_after])).toEqual([
      ['credit', 1_000],
      ['debit', 0],
    ]);
    const history = await historyOf(customer);
    expect(history.map((t) => t.balance_after)).toEqual([1_000, 0]);
    for (const t of history) expect(await balanceAt(customer, Date.parse(t.created_at))).toBe(t.balance_after);
  }, PROPERTY_TEST_TIMEOUT_MS);
});

/** Until a backend of the pool waits on a row lock of ledger_accounts (the transfer blocked on `account`). */
async function waitUntilBlocked(account: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query<{ waiting: number }>(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'",
    );
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no transfer waited for ${account}`);
}

/** A transfer of a batch: a new payment, or a repeat (same operation id) of an earlier one of the batch, with the same inputs or others. */
const batchedMove = fc.record({
  from: fc.nat(2),
  to: fc.nat(1),
  amount: fc.integer({ min: 1, max: 200_000 }),
  repeatOf: fc.option(fc.nat(), { nil: undefined }),
  otherInputs: fc.boolean(),
});

describe('the batch path: transfers asked for together are decided as if each ran alone, in arrival order', () => {
  it('outcomes, refusals, entries and balances equal those of a sequential model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batchedMove, { minLength: 1, maxLength: TRANSFER_BATCH_SIZE_MAX + 20 }), async (moves) => {
        now += 60_000;
        const currency: Currency = 'MAD';
        const accounts = await openAccounts(currency);
        for (const owner of accounts.customers) await ledger.topup({ topupId: newId('topup'), owner, amount: 300_000, currency });
        const requests: ExecuteTransfer[] = [];
        for (const [i, move] of moves.entries()) {
          const base = move.repeatOf !== undefined && i > 0 ? requests[move.repeatOf % i]! : undefined;
          requests.push(
            base
              ? { ...base, amount: base.amount + (move.otherInputs ? 1 : 0) }
              : { operationId: newId('payment'), reference: newId('payment'), useCase: 'payment', feeMode: 'deducted', debitOwner: accounts.customers[move.from]!, creditOwner: accounts.merchants[move.to]!, amount: move.amount, currency },
          );
        }

        // The model: one transfer after the other; the first of an operation id decides, a repeat answers it.
        const balances = new Map<string, number>([...accounts.customers.map((c): [string, number] => [c, 300_000]), ...accounts.merchants.map((m): [string, number] => [m, 0])]);
        const first = new Map<string, { amount: number; status: string }>();
        const expected = requests.map((request) => {
          const seen = first.get(request.operationId);
          if (seen) return seen.amount === request.amount ? seen.status : 'idempotency_key_reused';
          const { debitedAmount, netAmount } = planTransfer(request, DEFAULT_FEE_SCHEDULE);
          const funded = balances.get(request.debitOwner)! >= debitedAmount;
          if (funded) {
            balances.set(request.debitOwner, balances.get(request.debitOwner)! - debitedAmount);
            balances.set(request.creditOwner, balances.get(request.creditOwner)! + netAmount);
          }
          first.set(request.operationId, { amount: request.amount, status: funded ? 'completed' : 'rejected' });
          return funded ? 'completed' : 'rejected';
        });

        // Asked for in one event-loop turn: the batches form in this order, and none falls back to the one-by-one path.
        const failedBefore = ledger.batches.failed;
        const settled = await Promise.allSettled(requests.map((request) => ledger.transfer(request)));
        expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.status : (s.reason as { code: string }).code))).toEqual(expected);
        expect(ledger.batches.failed).toBe(failedBefore);
        for (const [owner, balance] of balances) expect((await ledger.getBalance({ owner })).available).toBe(balance);
        const ids = [...first.keys()];
        const { rows } = await pool.query<{ operation_id: string; entries: number }>(
          'SELECT operation_id, count(*)::int AS entries FROM ledger_entries WHERE operation_id = ANY($1) GROUP BY 1',
          [ids],
        );
        expect(new Map(rows.map((row) => [row.operation_id, row.entries]))).toEqual(new Map(ids.filter((id) => first.get(id)!.status === 'completed').map((id) => [id, 1])));
        for (const account of accounts.all) {
          let balance = 0;
          for (const transaction of await historyOf(account)) {
            balance += transaction.amount;
            expect(transaction.balance_after).toBe(balance);
          }
        }
      }),
      { numRuns: 30 },
    );
  }, PROPERTY_TEST_TIMEOUT_MS);
});
