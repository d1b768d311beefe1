import fc from 'fast-check';
import { InProcessBus } from '@pay/bus';
import { type ExecuteTransfer, type TransferOutcome } from '@pay/contracts';
import { type Clock, type Currency, newId, TRANSFER_BATCH_SIZE_MAX } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, paymentTransfer as payment, PROPERTY_TEST_TIMEOUT_MS } from '@pay/testing';
import { type Pool } from 'pg';
import { generateKeyPairSync } from 'node:crypto';
import { LEDGER_MIGRATIONS, LedgerChain, LedgerService, registerLedgerHandlers, signingKey } from './index';

/** A clock that moves 1 ms on every reading, so that entries have distinct, ordered times. */
const tickingClock = (start: Date): Clock => {
  let ms = start.getTime();
  return { now: () => new Date(ms++) };
};

let pool: Pool;
const bus = new InProcessBus();

beforeAll(async () => {
  const url = await createTestDatabase('ledger');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 20, statementTimeoutMs: 10_000 });
  const clock = tickingClock(new Date('2026-11-22T10:00:00.000Z'));
  registerLedgerHandlers(bus, new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE), new LedgerChain(pool, clock, signingKey(generateKeyPairSync('ed25519').privateKey)));
});

afterAll(async () => {
  await bus.close();
  await pool.end();
});

const customer = async (currency: Currency = 'DZD', funds = 0) => {
  const owner = newId('customer');
  await bus.request('ledger.open-account', { owner, kind: 'customer', currency });
  if (funds > 0) await bus.request('ledger.topup', { topupId: newId('topup'), owner, amount: funds, currency });
  return owner;
};
const merchant = async (currency: Currency = 'DZD') => {
  const owner = newId('connection');
  await bus.request('ledger.open-account', { owner, kind: 'connection', currency });
  return owner;
};
const available = async (owner: string) => (await bus.request('ledger.get-balance', { owner })).available;
const entriesOf = async (reference: string) => (await bus.request('ledger.entries', { reference })).data;
const transfer = (request: ExecuteTransfer) => bus.request('ledger.transfer', request);

describe('ledger accounts and top-ups', () => {
  it('opens an account with a zero balance; opening again answers the same account', async () => {
    const owner = newId('customer');
    const opened = await bus.request('ledger.open-account', { owner, kind: 'customer', currency: 'MAD' });
    expect(opened).toEqual({ object: 'balance', owner, currency: 'MAD', available: 0 });
    await expect(bus.request('ledger.open-account', { owner, kind: 'customer', currency: 'MAD' })).resolves.toEqual(opened);
    await expect(bus.request('ledger.get-balance', { owner })).resolves.toEqual(opened);
  });

  it('the same owner with another currency is invalid_request', async () => {
    const owner = await customer('DZD');
    await expect(bus.request('ledger.open-account', { owner, kind: 'customer', currency: 'TND' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('an unknown owner has no balance: resource_not_found', async () => {
    await expect(bus.request('ledger.get-balance', { owner: newId('customer') })).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  it('a top-up credits the account, from the funding account, and is idempotent by topup id', async () => {
    const owner = await customer('XOF');
    const request = { topupId: newId('topup'), owner, amount: 5_000, currency: 'XOF' as const };
    const first = await bus.request('ledger.topup', request);
    expect(first).toEqual({ id: request.topupId, object: 'topup', account: owner, amount: 5_000, currency: 'XOF', created_at: expect.any(String) });
    await expect(bus.request('ledger.topup', request)).resolves.toEqual(first);
    expect(await available(owner)).toBe(5_000);
    const [entry, ...others] = await entriesOf(request.topupId);
    expect(others).toEqual([]);
    expect(entry?.postings).toEqual([
      { account: 'platform:funding:XOF', direction: 'debit', amount: 5_000, currency: 'XOF' },
      { account: owner, direction: 'credit', amount: 5_000, currency: 'XOF' },
    ]);
  });

  it('a top-up in another currency is currency_mismatch, to an unknown owner resource_not_found, and with other inputs idempotency_key_reused', async () => {
    const owner = await customer('DZD');
    await expect(bus.request('ledger.topup', { topupId: newId('topup'), owner, amount: 100, currency: 'MAD' })).rejects.toMatchObject({ code: 'currency_mismatch' });
    await expect(bus.request('ledger.topup', { topupId: newId('topup'), owner: newId('customer'), amount: 100, currency: 'DZD' })).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    const topupId = newId('topup');
    await bus.request('ledger.topup', { topupId, owner, amount: 100, currency: 'DZD' });
    await expect(bus.request('ledger.topup', { topupId, owner, amount: 200, currency: 'DZD' })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await available(owner)).toBe(100);
  });
});

describe('ledger transfers', () => {
  it('fee deducted: the customer is debited the amount, the merchant credited net, the platform the fee', async () => {
    const [payer, payee] = [await customer('DZD', 2_000_000), await merchant()];
    const feesBefore = await available('platform:fees:DZD');
    const request = payment(payer, payee, 1_250_000);
    const outcome = await transfer(request);
    expect(outcome).toEqual({ status: 'completed', entryId: expect.stringMatching(/^je_/), feeAmount: 18_750, netAmount: 1_231_250, debitedAmount: 1_250_000, createdAt: expect.any(String) });
    expect([await available(payer), await available(payee), (await available('platform:fees:DZD')) - feesBefore]).toEqual([750_000, 1_231_250, 18_750]);
    expect(await entriesOf(request.reference)).toEqual([
      {
        id: outcome.status === 'completed' && outcome.entryId,
        object: 'journal_entry',
        reference: request.reference,
        kind: 'payment',
        created_at: outcome.status === 'completed' && outcome.createdAt,
        postings: [
          { account: payer, direction: 'debit', amount: 1_250_000, currency: 'DZD' },
          { account: payee, direction: 'credit', amount: 1_231_250, currency: 'DZD' },
          { account: 'platform:fees:DZD', direction: 'credit', amount: 18_750, currency: 'DZD' },
        ],
      },
    ]);
  });

  it('fee added: the business is debited amount + fee, the supplier credited the amount', async () => {
    const business = await merchant('TND');
    await bus.request('ledger.topup', { topupId: newId('topup'), owner: business, amount: 101_000, currency: 'TND' });
    const supplier = newId('beneficiary');
    await bus.request('ledger.open-account', { owner: supplier, kind: 'beneficiary', currency: 'TND' });
    const request = payment(business, supplier, 100_000, { useCase: 'supplier_payment', feeMode: 'added', currency: 'TND' });
    await expect(transfer(request)).resolves.toMatchObject({ status: 'completed', feeAmount: 1_000, netAmount: 99_000, debitedAmount: 101_000 });
    expect([await available(business), await available(supplier)]).toEqual([0, 100_000]);
    expect((await entriesOf(request.reference))[0]?.postings).toEqual([
      { account: business, direction: 'debit', amount: 101_000, currency: 'TND' },
      { account: supplier, direction: 'credit', amount: 100_000, currency: 'TND' },
      { account: 'platform:fees:TND', direction: 'credit', amount: 1_000, currency: 'TND' },
    ]);
  });

  it('insufficient balance: rejected, nothing moves, and the same operation id answers the rejection again', async () => {
    const [payer, payee] = [await customer('DZD', 999), await merchant()];
    const request = payment(payer, payee, 1_000);
    await expect(transfer(request)).resolves.toEqual({ status: 'rejected', reason: 'insufficient_balance' });
    await bus.request('ledger.topup', { topupId: newId('topup'), owner: payer, amount: 10_000, currency: 'DZD' });
    await expect(transfer(request)).resolves.toEqual({ status: 'rejected', reason: 'insufficient_balance' });
    expect([await available(payer), await available(payee), await entriesOf(request.reference)]).toEqual([10_999, 0, []]);
  });

  it('the same operation id twice makes one entry and answers the first outcome', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant()];
    const request = payment(payer, payee, 4_000);
    const first = await transfer(request);
    await expect(transfer(request)).resolves.toEqual(first);
    expect(await entriesOf(request.reference)).toHaveLength(1);
    expect(await available(payer)).toBe(6_000);
  });

  it('the same operation id 10 times concurrently makes one entry; every call answers the same outcome', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant()];
    const request = payment(payer, payee, 4_000);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => transfer(request)));
    for (const outcome of outcomes) expect(outcome).toEqual(outcomes[0]);
    expect(outcomes[0]).toMatchObject({ status: 'completed' });
    expect(await entriesOf(request.reference)).toHaveLength(1);
    expect(await available(payer)).toBe(6_000);
  });

  it('the same operation id with other inputs is idempotency_key_reused', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant()];
    const request = payment(payer, payee, 4_000);
    await transfer(request);
    await expect(transfer({ ...request, amount: 4_001 })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await available(payer)).toBe(6_000);
  });

  it('an account in another currency is currency_mismatch, and nothing is stored', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant('MAD')];
    const request = payment(payer, payee, 4_000);
    await expect(transfer(request)).rejects.toMatchObject({ code: 'currency_mismatch' });
    await expect(transfer(request)).rejects.toMatchObject({ code: 'currency_mismatch' });
    expect([await available(payer), await available(payee), await entriesOf(request.reference)]).toEqual([10_000, 0, []]);
  });

  it('an unknown account is invalid_request', async () => {
    const payer = await customer('DZD', 10_000);
    await expect(transfer(payment(payer, newId('connection'), 4_000))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await available(payer)).toBe(10_000);
  });

  it('no account goes below zero: funded for exactly 10 transfers, 20 concurrent ones complete 10 and reject 10', async () => {
    const [payer, payee] = [await customer('DZD', 10 * 1_000), await merchant()];
    const outcomes: TransferOutcome[] = await Promise.all(Array.from({ length: 20 }, () => transfer(payment(payer, payee, 1_000))));
    expect(outcomes.filter((outcome) => outcome.status === 'completed')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason === 'insufficient_balance')).toHaveLength(10);
    expect(await available(payer)).toBe(0);
    expect(await available(payee)).toBe(10 * 985);
    const { currencies } = await bus.request('ledger.trial-balance', {});
    for (const { total_debits, total_credits } of currencies) expect(total_debits).toBe(total_credits);
  });
});

describe('a caller\'s batch of transfers (ledger.transfer-batch)', () => {
  const batch = (transfers: ExecuteTransfer[]) => bus.request('ledger.transfer-batch', { currency: 'DZD', transfers });

  it('runs each transfer as ledger.transfer would: its own outcome or error, in order, the others unaffected', async () => {
    const [rich, poor, payee] = [await customer('DZD', 10_000), await customer('DZD', 500), await merchant()];
    const applied = payment(rich, payee, 4_000);
    const repeated = payment(rich, payee, 1_000);
    const first = await transfer(repeated);
    const { outcomes } = await batch([applied, payment(poor, payee, 1_000), payment(rich, newId('connection'), 1_000), repeated, { ...repeated, amount: 1_001 }]);
    expect(outcomes).toEqual([
      { reply: expect.objectContaining({ status: 'completed', debitedAmount: 4_000, feeAmount: 60 }) },
      { reply: { status: 'rejected', reason: 'insufficient_balance' } },
      { error: expect.objectContaining({ code: 'invalid_request' }) },
      { reply: first },
      { error: expect.objectContaining({ code: 'idempotency_key_reused' }) },
    ]);
    expect([await available(rich), await available(poor), await available(payee)]).toEqual([5_000, 500, 4_925]);
    await expect(transfer(applied)).resolves.toEqual((outcomes[0] as { reply: TransferOutcome }).reply);
  });

  it('no account goes below zero across batches: funded for 10, three concurrent batches of 10 complete 10', async () => {
    const [payer, payee] = [await customer('DZD', 10 * 1_000), await merchant()];
    const replies = await Promise.all(Array.from({ length: 3 }, () => batch(Array.from({ length: 10 }, () => payment(payer, payee, 1_000)))));
    const outcomes = replies.flatMap((reply) => reply.outcomes.map((o) => ('reply' in o ? o.reply.status : o.error.code)));
    expect(outcomes.filter((status) => status === 'completed')).toHaveLength(10);
    expect(outcomes.filter((status) => status === 'rejected')).toHaveLength(20);
    expect([await available(payer), await available(payee)]).toEqual([0, 10 * 985]);
  });

  it('refuses a transfer of another currency than the batch\'s, and an empty or oversized batch, before moving anything', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant()];
    const inDzd = payment(payer, payee, 1_000);
    await expect(bus.request('ledger.transfer-batch', { currency: 'MAD', transfers: [inDzd] })).rejects.toMatchObject({ code: 'invalid_request', message: `transfer ${inDzd.operationId} is in DZD, the batch in MAD` });
    await expect(batch([])).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(batch(Array.from({ length: TRANSFER_BATCH_SIZE_MAX + 1 }, () => payment(payer, payee, 1)))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await available(payer)).toBe(10_000);
  });
});

describe('ledger last line of defence', () => {
  it('the database refuses a customer balance below zero, even from a direct update', async () => {
    const owner = await customer('DZD', 100);
    await expect(pool.query('UPDATE ledger_accounts SET balance = balance - 101 WHERE id = $1', [owner])).rejects.toMatchObject({
      constraint: 'ledger_accounts_balance_not_negative',
    });
    expect(await available(owner)).toBe(100);
  });
});

describe('ledger reports', () => {
  it('lists the entries of a reference oldest first', async () => {
    const [payer, payee] = [await customer('DZD', 10_000), await merchant()];
    const reference = newId('payment');
    const first = await transfer(payment(payer, payee, 1_000, { reference }));
    const refund = await transfer(payment(payee, payer, 500, { reference }));
    const entries = await entriesOf(reference);
    expect(entries.map((entry) => entry.id)).toEqual([first, refund].map((outcome) => outcome.status === 'completed' && outcome.entryId));
    expect(entries[0]!.created_at < entries[1]!.created_at).toBe(true);
    expect(await entriesOf(newId('payment'))).toEqual([]);
  });

  it('the trial balance totals debits and credits per currency, and they are equal', async () => {
    const payer = await customer('MAD', 7_000);
    await transfer(payment(payer, await merchant('MAD'), 3_000, { currency: 'MAD' }));
    const { object, currencies } = await bus.request('ledger.trial-balance', {});
    expect(object).toBe('trial_balance');
    const mad = currencies.find((line) => line.currency === 'MAD');
    expect(mad?.total_debits).toBeGreaterThanOrEqual(7_000 + 3_000);
    for (const { total_debits, total_credits } of currencies) expect(total_debits).toBe(total_credits);
    const { rows } = await pool.query<{ sum: number }>('SELECT coalesce(sum(balance), 0)::bigint AS sum FROM ledger_accounts');
    expect(rows[0]?.sum).toBe(0);
  });
});

describe('balance transactions: every posting carries its account balance right after it', () => {
  /** Every posting of the accounts, oldest first, as the balance transactions list reads them. */
  const historyOf = async (account: string) => {
    const all = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await bus.request('ledger.balance-transactions.list', { owner: account, limit: 100, ...(startingAfter ? { startingAfter } : {}) });
      all.push(...page.data);
      if (!page.has_more) return all.reverse();
      startingAfter = page.data.at(-1)!.id;
    }
  };

  it('under random concurrent transfers (some refused), balance_after chains and the amounts add up to the balance', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ from: fc.nat(3), to: fc.nat(1), amount: fc.integer({ min: 1, max: 400_000 }) }), { minLength: 1, maxLength: 25 }), async (moves) => {
        const customers = await Promise.all([0, 1, 2, 3].map(() => customer('XOF', 1_000_000)));
        const merchants = await Promise.all([0, 1].map(() => merchant('XOF')));
        await Promise.all(moves.map((m) => transfer(payment(customers[m.from]!, merchants[m.to]!, m.amount, { currency: 'XOF' }))));
        for (const account of [...customers, ...merchants]) {
          const history = await historyOf(account);
          let balance = 0;
          for (const transaction of history) {
            balance += transaction.amount;
            expect(transaction.balance_after).toBe(balance);
            expect(transaction.balance_after).toBeGreaterThanOrEqual(0);
          }
          expect(await available(account)).toBe(balance);
        }
      }),
      { numRuns: 15 },
    );
  }, PROPERTY_TEST_TIMEOUT_MS);

  it('the hot fee account chains too, whatever the interleaving', async () => {
    const history = await historyOf('platform:fees:XOF');
    expect(history.length).toBeGreaterThan(0);
    let balance = 0;
    for (const transaction of history) {
      balance += transaction.amount;
      expect(transaction.balance_after).toBe(balance);
    }
    expect(await available('platform:fees:XOF')).toBe(balance);
  });
});

/**
 * Two ledger instances whose clocks differ (hosts a minute apart): an entry is dated no earlier than
 * the last posting of the accounts it moves, so on every account time order stays the order its
 * balance moved, and a balance as of a time (the balance_after of the last posting before it) is the
 * sum of the movements dated up to it.
 */
describe('ledger instances with clocks a minute apart', () => {
  const AHEAD = new Date('2026-11-22T12:01:00.000Z');
  const BEHIND = new Date('2026-11-22T12:00:00.000Z');
  const ahead = () => new LedgerService(pool, tickingClock(AHEAD), DEFAULT_FEE_SCHEDULE);
  const behind = () => new LedgerService(pool, tickingClock(BEHIND), DEFAULT_FEE_SCHEDULE);

  it('a top-up, then a transfer and a top-up on the instance behind: each dated at or after the one before, balances as of each time exact', async () => {
    const owner = await customer('DZD');
    const shop = await merchant('DZD');
    const first = await ahead().topup({ topupId: newId('topup'), owner, amount: 10_000, currency: 'DZD' });
    const late = behind();
    const paid = await late.transfer(payment(owner, shop, 4_000)); // the batch path
    const second = await late.topup({ topupId: newId('topup'), owner, amount: 1_000, currency: 'DZD' });
    expect(paid.status).toBe('completed');
    const times = [first.created_at, (paid as { createdAt: string }).createdAt, second.created_at];
    expect([...times].sort()).toEqual(times);
    expect(times[1]! >= AHEAD.toISOString()).toBe(true);
    // As of each time (entries dated at one instant count together): the sum of what was dated up to it.
    const moves = [10_000, -4_000, 1_000];
    for (const time of times) {
      const dated = moves.filter((_, i) => times[i]! <= time).reduce((sum, amount) => sum + amount, 0);
      expect((await bus.request('ledger.get-balance', { owner, asOf: time })).available).toBe(dated);
    }
    const statement = await bus.request('ledger.statement', { account: owner, from: BEHIND.toISOString(), to: new Date(AHEAD.getTime() + 60_000).toISOString(), limit: 10 });
    expect(statement.lines.map((l) => l.balance_after)).toEqual([10_000, 6_000, 7_000]);
  });
});
