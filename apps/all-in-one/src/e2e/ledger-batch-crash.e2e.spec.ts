import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { createPool } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { type Pool } from 'pg';
import { startServiceProcess, type ServiceProcess } from './process-harness';

/**
 * The batched ledger survives a crash inside a batch. Many authorizations at once make the ledger
 * apply their transfers in batches; a failpoint kills the process (SIGKILL) once a batch of several
 * transfers is written and not yet committed. After a restart on the same database the recovery sweep
 * finishes the authorizations the crash interrupted, and then: each payment succeeded exactly once or
 * was declined, each balance is the sum of its postings, the books balance, no operation has two
 * entries, no customer was ever below zero, and the hash chain is gapless and verifies. (The service
 * uses the run's PostgreSQL through DATABASE_URL, so that the test can read the ledger's tables.)
 */
const CUSTOMERS = 6;
const PAYMENTS_PER_CUSTOMER = 8;
const FUNDED_PAYMENTS_PER_CUSTOMER = 5;
const AMOUNT = 100_000;
const FEE = 1_500; // 150 bp
/** The recovery sweep finishes an authorization stalled for 5 s; it runs every second. */
const RECOVERY_WAIT_MS = 30_000;

describe('crash inside a ledger batch', () => {
  const adminKey = `admin_${randomBase62(32)}`;
  let env: Record<string, string>;
  let running: ServiceProcess | undefined;
  let db: Pool;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase('ledger_batch_crash');
    env = { DATA_DIR: await mkdtemp(join(tmpdir(), 'pay-batch-crash-')), DATABASE_URL: databaseUrl, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' };
    db = createPool(databaseUrl, { max: 2, statementTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await db.end();
  });

  it('every payment succeeded exactly once or was declined; the books balance; no customer below zero', async () => {
    running = await startServiceProcess({ ...env, FAILPOINTS: 'ledger.batch-before-commit' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Marketplace' })).body;
    const key = integrator.api_key as string;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body.id as string;
    const customers: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = (await admin('POST', '/admin/v1/customers', { name: `C${i}`, phone: `+21355500${1000 + i}`, pin: '1234', currency: 'DZD' })).body.id as string;
      expect((await admin('POST', '/admin/v1/topups', { account: customer, amount: FUNDED_PAYMENTS_PER_CUSTOMER * AMOUNT, currency: 'DZD' })).status).toBe(201);
      customers.push(customer);
    }
    const payments: { id: string; customer: string }[] = [];
    for (let i = 0; i < CUSTOMERS * PAYMENTS_PER_CUSTOMER; i++) {
      const created = await running.http('POST', '/v1/payments', {
        key,
        headers: { 'Idempotency-Key': `batch-crash-${i}` },
        body: { amount: AMOUNT, currency: 'DZD', order_reference: `order-${i}`, merchant_connection: merchant, return_url: 'https://shop.example/r' },
      });
      expect(created.status).toBe(201);
      payments.push({ id: created.body.id, customer: customers[i % CUSTOMERS]! });
    }

    // All at once: the hot merchant's transfers form batches, and the process dies inside one of several.
    const answered = await Promise.allSettled(
      payments.map((p) => running!.http('POST', `/v1/test_helpers/payments/${p.id}/authorize`, { key, body: { customer: p.customer } })),
    );
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint ledger.batch-before-commit');
    const cutOff = payments.filter((_, i) => answered[i]!.status === 'rejected');
    expect(cutOff.length).toBeGreaterThanOrEqual(2);
    const answeredBefore = new Map(
      payments.flatMap((p, i) => {
        const a = answered[i]!;
        return a.status === 'fulfilled' ? [[p.id, a.value.body.status as string] as const] : [];
      }),
    );

    running = await startServiceProcess(env);
    const status = async (id: string) => (await running!.http('GET', `/v1/payments/${id}`, { key })).body.status as string;
    // The sweep finishes what the crash interrupted: the transfers of the killed batch had started their
    // authorizations, so those payments become final without anyone asking again.
    const deadline = Date.now() + RECOVERY_WAIT_MS;
    let recovered = 0;
    while (Date.now() < deadline) {
      recovered = (await Promise.all(cutOff.map((p) => status(p.id)))).filter((s) => s !== 'pending').length;
      if (recovered >= 2) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(recovered).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 2_000)); // let the sweep finish the rest of what it found
    // What never reached the ledger is still pending: the client asks again (a retry after a dropped connection).
    for (const p of payments) {
      if ((await status(p.id)) !== 'pending') continue;
      const again = await running.http('POST', `/v1/test_helpers/payments/${p.id}/authorize`, { key, body: { customer: p.customer } });
      expect([200, 409]).toContain(again.status);
    }

    const final = new Map<string, string>();
    for (const p of payments) final.set(p.id, await status(p.id));
    for (const [id, before] of answeredBefore) expect(final.get(id)).toBe(before); // an answer given before the crash holds
    expect([...final.values()].every((s) => s === 'succeeded' || s === 'declined')).toBe(true);
    const succeeded = payments.filter((p) => final.get(p.id) === 'succeeded');
    // Each customer can pay FUNDED_PAYMENTS_PER_CUSTOMER, and with more asked, pays exactly that many.
    for (const customer of customers) expect(succeeded.filter((p) => p.customer === customer)).toHaveLength(FUNDED_PAYMENTS_PER_CUSTOMER);

    // Exactly one entry per succeeded payment, none for a declined one; no operation with two entries.
    const entries = await db.query<{ reference: string; n: number }>('SELECT reference, count(*)::int AS n FROM ledger_entries WHERE kind = $1 GROUP BY 1', ['payment']);
    expect(new Map(entries.rows.map((r) => [r.reference, r.n]))).toEqual(new Map(succeeded.map((p) => [p.id, 1])));
    expect((await db.query('SELECT operation_id FROM ledger_entries GROUP BY 1 HAVING count(*) > 1')).rows).toEqual([]);
    expect((await db.query('SELECT operation_id FROM ledger_operations WHERE outcome IS NULL')).rows).toEqual([]);
    // Balances: the sum of each account's postings, and what the payments say.
    const drift = await db.query(`
      SELECT a.id, a.balance, coalesce(p.total, 0) AS total FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(CASE direction WHEN 'credit' THEN amount ELSE -amount END) AS total FROM ledger_postings GROUP BY 1) p ON p.account_id = a.id
      WHERE a.balance <> coalesce(p.total, 0)`);
    expect(drift.rows).toEqual([]);
    for (const customer of customers) expect((await admin('GET', `/admin/v1/balances/${customer}`)).body.available).toBe(0);
    expect((await admin('GET', `/admin/v1/balances/${merchant}`)).body.available).toBe(succeeded.length * (AMOUNT - FEE));
    // The trial balance is zero per currency.
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
    // No customer ever below zero: each balance_after, and the chain of them, in the order they applied.
    const chains = await db.query<{ account_id: string; balance_after: number; running: number }>(`
      SELECT p.account_id, p.balance_after,
        sum(CASE p.direction WHEN 'credit' THEN p.amount ELSE -p.amount END) OVER (PARTITION BY p.account_id ORDER BY p.entry_position, p.seq)::bigint AS running
      FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.kind = 'customer'`);
    expect(chains.rows.length).toBe(customers.length * (1 + FUNDED_PAYMENTS_PER_CUSTOMER));
    for (const row of chains.rows) {
      expect(row.balance_after).toBe(row.running);
      expect(row.balance_after).toBeGreaterThanOrEqual(0);
    }
    // The hash chain: the killed batch gave no sequence away (gapless, every entry in it) and it verifies.
    const sequences = await db.query<{ entries: number; chained: number; max: number | null }>(
      'SELECT count(*)::int AS entries, count(sequence)::int AS chained, max(sequence)::int AS max FROM ledger_entries',
    );
    expect(sequences.rows[0]).toEqual({ entries: sequences.rows[0]!.entries, chained: sequences.rows[0]!.entries, max: sequences.rows[0]!.entries });
    expect((await admin('POST', '/admin/v1/ledger/chain/verify')).body).toEqual({ object: 'chain_verification', status: 'valid', entries: sequences.rows[0]!.entries, first_broken_sequence: null });
    expect((await admin('GET', '/admin/v1/ledger/chain/head')).body).toMatchObject({ sequence: sequences.rows[0]!.entries });
  }, 240_000);
});
