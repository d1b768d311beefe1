import { type ExecuteTransfer, type TransferOutcome } from '@pay/contracts';
import { type Clock, type Currency, newId } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { ledgerTransfersTotal } from '@pay/observability';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, paymentTransfer as payment } from '@pay/testing';
import { type Pool } from 'pg';
import { TRANSFER_BATCH_SIZE_MAX } from '@pay/kernel';
import { LEDGER_MIGRATIONS, LedgerService } from './index';
import { requestHash } from './transaction';

/**
 * The batched ledger: transfers that arrive together (here: asked for in the same event-loop turn) are
 * applied by one transaction, each exactly as if it ran alone, in arrival order.
 */

/** A clock that moves 1 ms on every reading: entries of one batch share the one reading taken after its locks. */
const tickingClock = (start: Date): Clock => {
  let ms = start.getTime();
  return { now: () => new Date(ms++) };
};

let pool: Pool;
let ledger: LedgerService;

beforeAll(async () => {
  const url = await createTestDatabase('ledger_batch');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 10, statementTimeoutMs: 10_000 });
  ledger = new LedgerService(pool, tickingClock(new Date('2026-12-01T10:00:00.000Z')), DEFAULT_FEE_SCHEDULE);
});

afterAll(async () => {
  await pool.end();
});

const open = async (kind: 'customer' | 'connection', funds = 0, currency: Currency = 'DZD') => {
  const owner = newId(kind);
  await ledger.openAccount({ owner, kind, currency });
  if (funds > 0) await ledger.topup({ topupId: newId('topup'), owner, amount: funds, currency });
  return owner;
};
const balance = async (owner: string) => (await ledger.getBalance({ owner })).available;
const settle = (requests: ExecuteTransfer[]) => Promise.allSettled(requests.map((request) => ledger.transfer(request)));
const counted = async () => Object.fromEntries((await ledgerTransfersTotal.get()).values.map((v) => [v.labels['outcome'], v.value]));
/** The entries of these operations with their postings on `account`, in the order they were written. */
const postingsOf = async (account: string, operationIds: string[]) =>
  (
    await pool.query<{ operation_id: string; created_at: Date; balance_after: number; position: number }>(
      `SELECT e.operation_id, e.created_at, p.balance_after, e.position FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
       WHERE e.operation_id = ANY($1) AND p.account_id = $2 ORDER BY e.position`,
      [operationIds, account],
    )
  ).rows;

describe('the batched ledger', () => {
  it('transfers that arrive together are one batch: one instant, balance_after in arrival order', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const requests = [1_000, 2_000, 3_000, 4_000].map((amount) => payment(payer, merchant, amount));
    const outcomes = await Promise.all(requests.map((request) => ledger.transfer(request)));
    expect(outcomes.map((o) => o.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const rows = await postingsOf(payer, requests.map((r) => r.operationId));
    expect(rows.map((row) => row.operation_id)).toEqual(requests.map((r) => r.operationId));
    expect(rows.map((row) => row.balance_after)).toEqual([9_000, 7_000, 4_000, 0]);
    expect(new Set(rows.map((row) => row.created_at.toISOString())).size).toBe(1); // one reading of the clock: one batch
    expect(rows[0]!.created_at.toISOString()).toBe(outcomes[0]!.status === 'completed' && outcomes[0]!.createdAt);
    expect((await postingsOf(merchant, requests.map((r) => r.operationId))).map((row) => row.balance_after)).toEqual([985, 2_955, 5_910, 9_850]);
  });

  it('a transfer that would overdraw is rejected alone, its neighbours before and after it go through', async () => {
    const [payer, merchant] = [await open('customer', 5_000), await open('connection')];
    const requests = [payment(payer, merchant, 3_000), payment(payer, merchant, 3_000), payment(payer, merchant, 2_000)];
    const outcomes = await Promise.all(requests.map((request) => ledger.transfer(request)));
    expect(outcomes.map((o) => o.status)).toEqual(['completed', 'rejected', 'completed']);
    expect(outcomes[1]).toEqual({ status: 'rejected', reason: 'insufficient_balance' });
    expect([await balance(payer), await balance(merchant)]).toEqual([0, 2_955 + 1_970]);
    // The rejection is stored: asked again, even once funded, it answers the same.
    await ledger.topup({ topupId: newId('topup'), owner: payer, amount: 10_000, currency: 'DZD' });
    await expect(ledger.transfer(requests[1]!)).resolves.toEqual(outcomes[1]);
  });

  it('the same operation id twice in one batch: one entry, the second answers the first outcome, counted applied then duplicate', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const request = payment(payer, merchant, 4_000);
    const before = await counted();
    const [first, second] = await Promise.all([ledger.transfer(request), ledger.transfer({ ...request })]);
    expect(first).toMatchObject({ status: 'completed' });
    expect(second).toEqual(first);
    expect((await pool.query('SELECT 1 FROM ledger_entries WHERE operation_id = $1', [request.operationId])).rowCount).toBe(1);
    expect(await balance(payer)).toBe(6_000);
    const after = await counted();
    expect([after['applied']! - before['applied']!, after['duplicate']! - before['duplicate']!, after['rejected']! - before['rejected']!]).toEqual([1, 1, 0]);
  });

  it('the same operation id with other inputs in the same batch is idempotency_key_reused; the first applies', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const request = payment(payer, merchant, 4_000);
    const [first, other] = await settle([request, { ...request, amount: 4_001 }]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { status: 'completed' } });
    expect(other).toMatchObject({ status: 'rejected', reason: { code: 'idempotency_key_reused' } });
    expect(await balance(payer)).toBe(6_000);
  });

  it('an operation claimed before answers its stored outcome from within a batch, and moves nothing again', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const request = payment(payer, merchant, 4_000);
    const first = await ledger.transfer(request);
    const [again, other, fresh] = await settle([request, { ...request, amount: 1 }, payment(payer, merchant, 1_000)]);
    expect(again).toEqual({ status: 'fulfilled', value: first });
    expect(other).toMatchObject({ status: 'rejected', reason: { code: 'idempotency_key_reused' } });
    expect(fresh).toMatchObject({ status: 'fulfilled', value: { status: 'completed' } });
    expect(await balance(payer)).toBe(5_000);
  });

  it('a missing account or another currency fails that transfer alone, storing nothing for it; its repeat in the batch gets the same error', async () => {
    const [payer, merchant, madMerchant] = [await open('customer', 10_000), await open('connection'), await open('connection', 0, 'MAD')];
    const unknown = payment(payer, newId('connection'), 1_000);
    const mismatch = payment(payer, madMerchant, 1_000);
    const results = await settle([unknown, mismatch, payment(payer, merchant, 2_000), { ...mismatch }]);
    expect(results.map((r) => (r.status === 'rejected' ? r.reason.code : r.value.status))).toEqual(['invalid_request', 'currency_mismatch', 'completed', 'currency_mismatch']);
    const stored = await pool.query('SELECT 1 FROM ledger_operations WHERE operation_id = ANY($1)', [[unknown.operationId, mismatch.operationId]]);
    expect(stored.rowCount).toBe(0);
    expect(await balance(payer)).toBe(8_000);
  });

  it('a database error fails the batch, and each of its transfers runs again alone: only the bad one fails', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    // PostgreSQL refuses a NUL character in text: the batch's write fails, and so does this transfer alone.
    const bad = payment(payer, merchant, 1_000, { reference: 'pay_\u0000' });
    const good = [payment(payer, merchant, 2_000), payment(payer, merchant, 3_000)];
    const before = await counted();
    const failedBefore = ledger.batches.failed;
    const results = await settle([good[0]!, bad, good[1]!]);
    expect(ledger.batches.failed).toBe(failedBefore + 1);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { status: 'completed' } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: '22021' } }); // character_not_in_repertoire
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { status: 'completed' } });
    expect(await balance(payer)).toBe(5_000);
    expect((await pool.query('SELECT 1 FROM ledger_operations WHERE operation_id = $1', [bad.operationId])).rowCount).toBe(0);
    // Run alone, not in a batch: each has its own instant.
    const rows = await postingsOf(payer, good.map((r) => r.operationId));
    expect(rows.map((row) => row.balance_after)).toEqual([8_000, 5_000]);
    expect(rows[0]!.created_at < rows[1]!.created_at).toBe(true);
    const after = await counted();
    expect(after['applied']! - before['applied']!).toBe(2);
  });

  it('an operation another transaction is still claiming is waited for: answered from its outcome once it commits', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const request = payment(payer, merchant, 4_000);
    const stored: TransferOutcome = { status: 'rejected', reason: 'insufficient_balance' };
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      const { operationId, reference, useCase, feeMode, debitOwner, creditOwner, amount, currency } = request;
      const hash = requestHash('transfer', [operationId, reference, useCase, feeMode, debitOwner, creditOwner, amount, currency]);
      await holder.query('INSERT INTO ledger_operations (operation_id, request_hash, created_at) VALUES ($1, $2, now())', [operationId, hash]);
      const batch = settle([request, { ...request, amount: 1 }, payment(payer, merchant, 1_000)]);
      await waitUntilWaiting('ledger_operations');
      await holder.query('UPDATE ledger_operations SET outcome = $2 WHERE operation_id = $1', [operationId, stored]);
      await holder.query('COMMIT');
      const [held, other, fresh] = await batch;
      expect(held).toEqual({ status: 'fulfilled', value: stored });
      expect(other).toMatchObject({ status: 'rejected', reason: { code: 'idempotency_key_reused' } });
      expect(fresh).toMatchObject({ status: 'fulfilled', value: { status: 'completed' } });
    } finally {
      holder.release();
    }
    expect(await balance(payer)).toBe(9_000);
  });

  it('an operation whose claimer rolls back is claimed and applied by the batch', async () => {
    const [payer, merchant] = [await open('customer', 10_000), await open('connection')];
    const request = payment(payer, merchant, 4_000);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("INSERT INTO ledger_operations (operation_id, request_hash, created_at) VALUES ($1, 'x', now())", [request.operationId]);
      const batch = ledger.transfer(request);
      await waitUntilWaiting('ledger_operations');
      await holder.query('ROLLBACK');
      await expect(batch).resolves.toMatchObject({ status: 'completed' });
    } finally {
      holder.release();
    }
    expect(await balance(payer)).toBe(6_000);
  });

  it(`more than ${TRANSFER_BATCH_SIZE_MAX} at once: several batches, funded for exactly 100 of 150, exactly 100 apply`, async () => {
    const [payer, merchant] = [await open('customer', 100 * 1_000), await open('connection')];
    const outcomes = await Promise.all(Array.from({ length: 150 }, () => ledger.transfer(payment(payer, merchant, 1_000))));
    expect(outcomes.filter((o) => o.status === 'completed')).toHaveLength(100);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(50);
    expect(outcomes.slice(0, 100).every((o) => o.status === 'completed')).toBe(true); // decided in arrival order
    expect([await balance(payer), await balance(merchant)]).toEqual([0, 100 * 985]);
    const instants = await pool.query<{ n: number }>(
      'SELECT count(DISTINCT e.created_at)::int AS n FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id WHERE p.account_id = $1 AND e.kind = $2',
      [payer, 'payment'],
    );
    expect(instants.rows[0]!.n).toBeGreaterThanOrEqual(2);
    expect(instants.rows[0]!.n).toBeLessThanOrEqual(Math.ceil(150 / TRANSFER_BATCH_SIZE_MAX));
  });

  it('the books balance and every balance is the sum of its postings; only the batch with the bad transfer fell back', async () => {
    expect(ledger.batches.failed).toBe(1);
    expect(ledger.batches.written).toBeGreaterThan(10);
    const { rows } = await pool.query<{ id: string }>(`
      SELECT a.id FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(CASE direction WHEN 'credit' THEN amount ELSE -amount END) AS total FROM ledger_postings GROUP BY 1) p ON p.account_id = a.id
      WHERE a.balance <> coalesce(p.total, 0)`);
    expect(rows).toEqual([]);
    const { currencies } = await ledger.trialBalance();
    for (const { total_debits, total_credits } of currencies) expect(total_debits).toBe(total_credits);
    expect((await pool.query('SELECT 1 FROM ledger_operations WHERE outcome IS NULL')).rowCount).toBe(0);
  });
});

/** Until a backend of the pool waits on a lock (the batch's claim waiting for the holder's row). */
async function waitUntilWaiting(table: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query<{ waiting: number }>(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1",
      [`%INSERT INTO ${table}%`],
    );
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`nothing waited on ${table}`);
}
