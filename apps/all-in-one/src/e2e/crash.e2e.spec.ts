import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { startServiceProcess, type ServiceProcess } from './process-harness';
import { Receiver } from './receiver';

/**
 * The authorization process survives a crash between its steps. The service runs as `npm start` does,
 * on embedded PostgreSQL under DATA_DIR; a failpoint kills it (SIGKILL) right after the ledger transfer,
 * before the payment's success is recorded. After a restart on the same DATA_DIR the payment completes,
 * and the customer was debited exactly once.
 */
/** Each service's DATA_DIR (its embedded PostgreSQL), removed once every service of the file is stopped. */
const dataDirs: string[] = [];
const newDataDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dataDirs.push(dir);
  return dir;
};
afterAll(() => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('crash between the ledger transfer and the payment success event', () => {
  let dataDir: string;
  const adminKey = `admin_${randomBase62(32)}`;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });
  let running: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = await newDataDir('pay-crash-');
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('resumes after restart: the payment succeeds and the customer is debited once', async () => {
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'payments.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Crash shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    const customer = (await admin('POST', '/admin/v1/customers', { name: 'C', phone: '+213555000333', pin: '1234', currency: 'DZD' })).body;
    expect((await admin('POST', '/admin/v1/topups', { account: customer.id, amount: 3_000_000, currency: 'DZD' })).status).toBe(201);
    const payment = (
      await running.http('POST', '/v1/payments', {
        key: integrator.api_key,
        headers: { 'Idempotency-Key': 'crash-1' },
        body: { amount: 1_250_000, currency: 'DZD', order_reference: 'crash-order', merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
      })
    ).body;
    expect(payment.status).toBe('pending');

    // The process dies inside this request: the client sees the connection drop.
    await expect(
      running.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: integrator.api_key, body: { customer: customer.id } }),
    ).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint payments.after-ledger-transfer');

    running = await startServiceProcess(env());
    const after = await running.http('GET', `/v1/payments/${payment.id}`, { key: integrator.api_key });
    expect(after.body).toMatchObject({ id: payment.id, status: 'succeeded', fee_amount: 18_750, net_amount: 1_231_250 });
    expect((await admin('GET', `/admin/v1/balances/${customer.id}`)).body.available).toBe(3_000_000 - 1_250_000);
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(1_231_250);
    const entries = await admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`);
    expect(entries.body.data).toHaveLength(1);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);

    // The authorization helper after recovery: the payment is final, nothing moves again.
    const again = await running.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: integrator.api_key, body: { customer: customer.id } });
    expect(again.status).toBe(409);
    expect((await admin('GET', `/admin/v1/balances/${customer.id}`)).body.available).toBe(1_750_000);
  });

  it('shuts down gracefully on SIGTERM, and data survives the restart', async () => {
    running!.child.kill('SIGTERM');
    const exit = await running!.exited;
    expect({ ...exit, output: exit.code === 0 ? '' : running!.output().split('\n').filter((l) => /error|fail|shut/i.test(l)).slice(0, 15).join('\n') }).toEqual({ code: 0, signal: null, output: '' });
    running = await startServiceProcess(env());
    const trial = (await running.http('GET', '/admin/v1/ledger/trial_balance', { key: adminKey })).body;
    expect(trial.currencies).toEqual([{ currency: 'DZD', total_debits: 3_000_000 + 1_250_000, total_credits: 3_000_000 + 1_250_000 }]);
  });
});

/**
 * A payment's `payment.succeeded` survives a crash on its way to the integrator: killed after the
 * webhooks app recorded it (before any delivery), or before it was recorded at all (the change in its
 * stream only: the relay records it after the restart). Either way it is delivered once, under one id.
 */
describe.each([
  ['after a payment succeeds, before its event is delivered', 'webhooks.after-record'],
  ['between a status change and its recording with the webhooks app', 'events.before-record.payment.succeeded'],
])('crash %s', (_when, failpoint) => {
  const adminKey = `admin_${randomBase62(32)}`;
  let running: ServiceProcess | undefined;
  const hook = new Receiver();

  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await hook.stop();
  });

  it('after restart the event is delivered once, with the same id, listed once; the payment succeeded', async () => {
    await hook.start();
    const dataDir = await newDataDir('pay-crash-hook-');
    const env = { DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' };
    running = await startServiceProcess({ ...env, FAILPOINTS: failpoint });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Hook shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    const customer = (await admin('POST', '/admin/v1/customers', { name: 'C', phone: '+213555000444', pin: '1234', currency: 'DZD' })).body;
    await admin('POST', '/admin/v1/topups', { account: customer.id, amount: 2_000_000, currency: 'DZD' });
    const endpoint = await running.http('POST', '/v1/webhook_endpoints', { key: integrator.api_key, body: { url: hook.url, enabled_events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const payment = (
      await running.http('POST', '/v1/payments', {
        key: integrator.api_key,
        headers: { 'Idempotency-Key': 'hook-crash-1' },
        body: { amount: 1_000_000, currency: 'DZD', order_reference: 'hook-order', merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
      })
    ).body;

    await expect(
      running.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: integrator.api_key, body: { customer: customer.id } }),
    ).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain(`failpoint ${failpoint}`);
    expect(hook.received).toHaveLength(0);

    running = await startServiceProcess(env);
    await hook.waitFor(1, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.received).toHaveLength(1);
    const delivered = JSON.parse(hook.received[0]!.body);
    expect(delivered).toMatchObject({ type: 'payment.succeeded', data: { id: payment.id, status: 'succeeded' } });
    const listed = await running.http('GET', '/v1/events', { key: integrator.api_key });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([delivered.id]);
    expect(hook.received[0]!.headers['webhook-id']).toBe(delivered.id);
    expect((await running.http('GET', `/v1/payments/${payment.id}`, { key: integrator.api_key })).body.status).toBe('succeeded');
  });
});

describe('crash between the supplier payment transfer and its success event', () => {
  const adminKey = `admin_${randomBase62(32)}`;
  let running: ServiceProcess | undefined;

  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('resumes after restart: succeeded, the business debited amount + fee once, the supplier credited once', async () => {
    const dataDir = await newDataDir('pay-crash-spay-');
    const env = { DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' };
    running = await startServiceProcess({ ...env, FAILPOINTS: 'supplier-payments.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Buyer' })).body;
    const business = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'business', name: 'B', currency: 'MAD' })).body;
    const beneficiary = (await admin('POST', '/admin/v1/beneficiaries', { business: business.id, account_name: 'Supplier SARL', currency: 'MAD' })).body;
    await admin('POST', '/admin/v1/topups', { account: business.id, amount: 1_000_000, currency: 'MAD' });
    const payment = (
      await running.http('POST', '/v1/supplier_payments', {
        key: integrator.api_key,
        body: { payer_connection: business.id, beneficiary: beneficiary.id, amount: 500_000, currency: 'MAD', invoice_reference: 'INV-CRASH-1' },
      })
    ).body;
    expect(payment.status).toBe('awaiting_approval');

    await expect(running.http('POST', `/v1/test_helpers/supplier_payments/${payment.id}/approve`, { key: integrator.api_key })).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });

    running = await startServiceProcess(env);
    const after = (await running.http('GET', `/v1/supplier_payments/${payment.id}`, { key: integrator.api_key })).body;
    expect(after).toMatchObject({ status: 'succeeded', fee_amount: 5_000 }); // 100 bp by default
    expect((await admin('GET', `/admin/v1/balances/${business.id}`)).body.available).toBe(1_000_000 - 500_000 - 5_000);
    expect((await admin('GET', `/admin/v1/balances/${beneficiary.id}`)).body.available).toBe(500_000);
    expect((await admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data).toHaveLength(1);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
  });
});

describe('crash between a refund’s ledger transfer and its success event', () => {
  const adminKey = `admin_${randomBase62(32)}`;
  let dataDir: string;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });
  let running: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = await newDataDir('pay-crash-refund-');
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('resumes after restart: the refund succeeded once, the customer credited once', async () => {
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'refunds.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Refund shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    const customer = (await admin('POST', '/admin/v1/customers', { name: 'C', phone: '+213555000444', pin: '1234', currency: 'DZD' })).body;
    expect((await admin('POST', '/admin/v1/topups', { account: customer.id, amount: 1_000_000, currency: 'DZD' })).status).toBe(201);
    const key = integrator.api_key;
    const payment = (
      await running.http('POST', '/v1/payments', {
        key,
        headers: { 'Idempotency-Key': 'refund-crash-1' },
        body: { amount: 1_000_000, currency: 'DZD', order_reference: 'o', merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
      })
    ).body;
    expect((await running.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key, body: { customer: customer.id } })).body.status).toBe('succeeded');

    // The process dies inside the refund request, its money moved but its outcome not recorded.
    await expect(running.http('POST', '/v1/refunds', { key, headers: { 'Idempotency-Key': 'refund-1' }, body: { payment: payment.id, amount: 400_000 } })).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint refunds.after-ledger-transfer');

    running = await startServiceProcess(env());
    const list = await running.http('GET', `/v1/refunds?payment=${payment.id}`, { key });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ status: 'succeeded', amount: 400_000 });
    expect((await running.http('GET', `/v1/payments/${payment.id}`, { key })).body.amount_refunded).toBe(400_000);
    expect((await admin('GET', `/admin/v1/balances/${customer.id}`)).body.available).toBe(400_000);
    expect((await admin('GET', `/admin/v1/ledger/entries?reference=${list.body.data[0].id}`)).body.data).toHaveLength(1);
    // The same request again (same key): the same refund (or, while the dead request's claim on the key
    // has not expired, 409 idempotency_key_in_use); never a second refund.
    const again = await running.http('POST', '/v1/refunds', { key, headers: { 'Idempotency-Key': 'refund-1' }, body: { payment: payment.id, amount: 400_000 } });
    if (again.status === 409) expect(again.body.error.code).toBe('idempotency_key_in_use');
    else expect(again.body).toMatchObject({ id: list.body.data[0].id, status: 'succeeded' });
    expect((await admin('GET', `/admin/v1/balances/${customer.id}`)).body.available).toBe(400_000);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
  });
});

describe('one service per DATA_DIR', () => {
  it('a second npm start on the same DATA_DIR refuses to start, naming the owner, and the first keeps serving', async () => {
    const dataDir = await newDataDir('pay-lock-');
    const env = { DATA_DIR: dataDir, ADMIN_API_KEY: `admin_${randomBase62(32)}`, RATE_LIMIT_PER_SECOND: '0' };
    const first = await startServiceProcess(env);
    try {
      await expect(startServiceProcess(env)).rejects.toThrow(/DATA_DIR .* is in use by another instance of the service \(pid \d+\)/);
      expect((await first.http('GET', '/ready')).status).toBe(200);
      expect((await first.http('GET', '/admin/v1/ledger/trial_balance', { key: env.ADMIN_API_KEY })).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
    }
    // Stopped cleanly, the lock is released: the next start takes it.
    const next = await startServiceProcess(env);
    next.child.kill('SIGTERM');
    await next.exited;
  }, 240_000);

  it('an unreachable DATABASE_URL is named, without a stack or its password', async () => {
    await expect(startServiceProcess({ DATABASE_URL: 'postgres://app:s3cret-pw@127.0.0.1:1/payments', DATA_DIR: await newDataDir('pay-db-') })).rejects.toThrow(
      /failed to start: cannot use the PostgreSQL of DATABASE_URL \(127\.0\.0\.1:1\/payments\): ECONNREFUSED/,
    );
  }, 120_000);
});
