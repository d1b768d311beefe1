import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { startServiceProcess, type ServiceProcess } from './process-harness';

/**
 * A payout survives a crash between its ledger step and its event: the service runs as `npm start`
 * does, on embedded PostgreSQL under DATA_DIR; a failpoint kills it (SIGKILL) right after the debit's
 * transfer, before the payout's outcome is recorded. After a restart the payout is pending and the
 * connection was debited exactly once.
 */
describe('payouts: crash between the ledger transfer and the outcome', () => {
  let dataDir: string;
  let running: ServiceProcess | undefined;
  const adminKey = `admin_${randomBase62(32)}`;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pay-payout-crash-'));
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('after a restart the payout is pending and the connection debited once', async () => {
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'payouts.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Crash shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    expect((await admin('POST', '/admin/v1/topups', { account: merchant.id, amount: 3_000_000, currency: 'DZD' })).status).toBe(201);
    const account = await running.http('POST', '/v1/bank_accounts', {
      key: integrator.api_key,
      headers: { 'Idempotency-Key': 'crash-ba' },
      body: { connection: merchant.id, account_holder: 'Crash SARL', iban: 'DZ580002100001113000000570' },
    });
    expect(account.status).toBe(201);

    // The process dies inside this request: the client sees the connection drop.
    await expect(
      running.http('POST', '/v1/payouts', {
        key: integrator.api_key,
        headers: { 'Idempotency-Key': 'crash-po' },
        body: { connection: merchant.id, bank_account: account.body.id, amount: 1_250_000, currency: 'DZD' },
      }),
    ).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint payouts.after-ledger-transfer');

    running = await startServiceProcess(env());
    // Recovery (before serving) finished the debit's outcome: the payout is listed, pending, debited once.
    let listed: { id: string; status: string; amount: number }[] = [];
    for (let i = 0; i < 50 && listed.length === 0; i++) {
      listed = (await running.http('GET', '/v1/payouts', { key: integrator.api_key })).body.data;
      if (listed.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toEqual([expect.objectContaining({ status: 'pending', amount: 1_250_000 })]);
    const payoutId = listed[0]!.id;
    expect((await running.http('GET', `/v1/payouts/${payoutId}`, { key: integrator.api_key })).body).toMatchObject({ status: 'pending' });
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(3_000_000 - 1_250_000);
    const entries = await admin('GET', `/admin/v1/ledger/entries?reference=${payoutId}`);
    expect(entries.body.data).toHaveLength(1);
    // Canceling it after the recovery moves the amount back once.
    expect((await running.http('POST', `/v1/payouts/${payoutId}/cancel`, { key: integrator.api_key })).body).toMatchObject({ status: 'canceled' });
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(3_000_000);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
    expect((await admin('POST', '/admin/v1/ledger/reconciliations')).body).toMatchObject({ status: 'balanced' });
  }, 180_000);
});
