import { createCashPoint, createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';
import { gatewayRoutes, samplePath } from './route-table';

/** Ledger accounts and balances by a platform account's id. */
const concrete = (path: string) => samplePath(path, 'x1', { accounts: 'platform:fees:DZD', balances: 'platform:fees:DZD' });

const FINANCE_READS = [
  '/admin/v1/balances/:owner',
  '/admin/v1/ledger/trial_balance',
  '/admin/v1/ledger/accounts',
  '/admin/v1/ledger/accounts/:id/statement',
  '/admin/v1/ledger/entries',
  '/admin/v1/ledger/fee_revenue',
  '/admin/v1/ledger/cash_in_transit',
  // The hash chain's reads (contract section 17).
  '/admin/v1/ledger/chain',
  '/admin/v1/ledger/chain/head',
  '/admin/v1/ledger/signing_keys',
  '/admin/v1/ledger/chain/export',
  '/admin/v1/audit_events',
];

describe('finance: read-only ledger access', () => {
  let service: TestService;
  let shop: Integrator;
  let financeKey: string;
  let financeKeyId: string;
  let start: string;
  const payments: any[] = [];

  const finance = (path: string, headers: Record<string, string> = {}) => service.http('GET', path, { key: financeKey, headers });

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    start = new Date(Date.now() - 1_000).toISOString();
    const customer = await createCustomer(service, 10_000_000);
    for (const amount of [1_000_000, 2_000_000]) {
      const payment = await createPayment(service, shop, { amount });
      await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } });
      payments.push(payment);
    }
    const created = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Accounting' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^key_/), object: 'api_key', role: 'finance', name: 'Accounting', api_key: expect.stringMatching(/^fk_/), status: 'active' });
    financeKey = created.body.api_key;
    financeKeyId = created.body.id;
  });
  afterAll(() => service.stop());

  it('a finance key reads every ledger GET', async () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    for (const path of [
      `/admin/v1/balances/${shop.merchant}`,
      '/admin/v1/ledger/trial_balance',
      '/admin/v1/ledger/accounts',
      `/admin/v1/ledger/accounts/${shop.merchant}/statement?from=${start}&to=${to}`,
      `/admin/v1/ledger/entries?reference=${payments[0].id}`,
      `/admin/v1/ledger/fee_revenue?from=${start}&to=${to}`,
      '/admin/v1/ledger/cash_in_transit',
      '/admin/v1/ledger/chain',
      '/admin/v1/ledger/chain/head',
      '/admin/v1/ledger/signing_keys',
      '/admin/v1/ledger/chain/export',
    ]) {
      const response = await finance(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });

  it('a finance key is 403 forbidden on every other /admin/v1 route and every POST, and 401 on /v1 (routes from the route table)', async () => {
    const routes = gatewayRoutes();
    const admin = routes.filter((r) => r.path.startsWith('/admin/v1/') && !(r.method === 'GET' && FINANCE_READS.includes(r.path)));
    expect(admin.length).toBeGreaterThan(10);
    for (const route of admin) {
      const response = await service.http(route.method, concrete(route.path), { key: financeKey, body: route.method === 'GET' ? undefined : {} });
      expect({ route, status: response.status, code: response.body?.error?.code }).toEqual({ route, status: 403, code: 'forbidden' });
    }
    for (const route of routes.filter((r) => r.path.startsWith('/v1/'))) {
      const response = await service.http(route.method, concrete(route.path), { key: financeKey, body: route.method === 'GET' ? undefined : {} });
      expect({ route, status: response.status }).toEqual({ route, status: 401 });
    }
  });

  it('balances and the trial balance as of a time', async () => {
    const before = new Date(Date.parse(start) - 60_000).toISOString();
    expect((await finance(`/admin/v1/balances/${shop.merchant}?as_of=${before}`)).body).toMatchObject({ owner: shop.merchant, available: 0 });
    const now = new Date(Date.now() + 1_000).toISOString();
    const current = (await finance(`/admin/v1/balances/${shop.merchant}`)).body.available;
    expect((await finance(`/admin/v1/balances/${shop.merchant}?as_of=${now}`)).body.available).toBe(current);
    const trial = (await finance(`/admin/v1/ledger/trial_balance?as_of=${before}`)).body;
    expect(trial.object).toBe('trial_balance');
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
    expect((await finance('/admin/v1/ledger/trial_balance?as_of=soon')).status).toBe(400);
  });

  it('statements: opening + credits − debits = closing, running balances, pages, CSV', async () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    const path = `/admin/v1/ledger/accounts/platform:fees:DZD/statement?from=${start}&to=${to}`;
    const whole = (await finance(path)).body;
    expect(whole).toMatchObject({ object: 'statement', account: 'platform:fees:DZD', currency: 'DZD', has_more: false });
    expect(whole.lines).toHaveLength(2);
    expect(whole.opening_balance + whole.total_credits - whole.total_debits).toBe(whole.closing_balance);
    let running = whole.opening_balance;
    for (const line of whole.lines) {
      running += line.direction === 'credit' ? line.amount : -line.amount;
      expect(line.balance_after).toBe(running);
    }
    expect(whole.closing_balance).toBe((await finance(`/admin/v1/balances/platform:fees:DZD?as_of=${to}`)).body.available);

    const first = (await finance(`${path}&limit=1`)).body;
    expect(first).toMatchObject({ has_more: true, opening_balance: whole.opening_balance });
    const second = (await finance(`${path}&limit=1&starting_after=${first.lines[0].entry}`)).body;
    expect(second).toMatchObject({ has_more: false, opening_balance: first.closing_balance, closing_balance: whole.closing_balance });

    const csv = await finance(path, { Accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = String(csv.body).trim().split('\n');
    expect(rows[0]).toBe('entry,reference,kind,created_at,direction,amount,balance_after');
    expect(rows).toHaveLength(3);

    for (const bad of [`from=${to}&to=${start}`, `from=${start}`, `from=${start}&to=${to}&limit=1001`, `from=x&to=${to}`]) {
      expect((await finance(`/admin/v1/ledger/accounts/platform:fees:DZD/statement?${bad}`)).status).toBe(400);
    }
    expect((await finance(`/admin/v1/ledger/accounts/conn_unknown/statement?from=${start}&to=${to}`)).status).toBe(404);
  });

  it('entries by account and period, oldest first; CSV one row per posting', async () => {
    const entries = (await finance(`/admin/v1/ledger/entries?account=${shop.merchant}&from=${start}`)).body;
    expect(entries.data.map((e: any) => e.reference)).toEqual(payments.map((p) => p.id));
    const csv = await finance(`/admin/v1/ledger/entries?reference=${payments[0].id}`, { Accept: 'text/csv' });
    const rows = String(csv.body).trim().split('\n');
    expect(rows[0]).toBe('entry,reference,kind,created_at,account,direction,amount,currency');
    expect(rows).toHaveLength(4); // customer debit, merchant credit, fee credit
    expect((await finance('/admin/v1/ledger/entries')).status).toBe(400);
  });

  it('fee revenue per currency and use case over a period', async () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    const revenue = (await finance(`/admin/v1/ledger/fee_revenue?from=${start}&to=${to}`)).body;
    expect(revenue).toEqual({
      object: 'fee_revenue',
      from: start,
      to,
      currencies: [{ currency: 'DZD', total: 45_000, by_use_case: { payment: 45_000, cash_payment: 0, supplier_payment: 0, settlement: 0 } }],
    });
    const csv = await finance(`/admin/v1/ledger/fee_revenue?from=${start}&to=${to}`, { Accept: 'text/csv' });
    expect(String(csv.body).trim().split('\n')).toEqual(['currency,use_case,amount', 'DZD,payment,45000', 'DZD,cash_payment,0', 'DZD,supplier_payment,0', 'DZD,settlement,0']);
  });

  it('accounts, filtered by kind and currency', async () => {
    const connections = (await finance('/admin/v1/ledger/accounts?kind=connection&currency=DZD&limit=100')).body;
    expect(connections.data.map((a: any) => a.id)).toContain(shop.merchant);
    expect(connections.data.every((a: any) => a.object === 'ledger_account' && a.kind === 'connection')).toBe(true);
    expect((await finance('/admin/v1/ledger/accounts?kind=shop')).status).toBe(400);
  });

  it('cash in transit: with carriers, at cash points, and the collections behind it', async () => {
    const wholesaler = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'wholesaler', name: 'W', currency: 'DZD' } });
    await createCashPoint(service);
    const collection = await service.http('POST', '/v1/collections', {
      key: shop.apiKey,
      body: { amount: 250_000, currency: 'DZD', order_reference: 'c', beneficiary_connection: wholesaler.body.id },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    const handedOver = await service.http('POST', `/v1/test_helpers/collections/${collection.body.id}/confirm_handover`, { key: shop.apiKey });
    expect(handedOver.body).toMatchObject({ status: 'collected_awaiting_deposit' });
    const transit = (await finance('/admin/v1/ledger/cash_in_transit')).body;
    expect(transit.object).toBe('cash_in_transit');
    expect(transit.currencies).toContainEqual({ currency: 'DZD', with_carriers: 250_000, at_cash_points: 0 });
    expect(transit.collections).toEqual([
      { id: collection.body.id, amount: 250_000, currency: 'DZD', status: 'collected_awaiting_deposit', collected_at: expect.any(String), due_at: expect.any(String), overdue: false, point: expect.stringMatching(/^cp_/) },
    ]);
  });

  it('a revoked finance key is 401', async () => {
    expect((await service.admin('POST', `/admin/v1/api_keys/${financeKeyId}/revoke`)).status).toBe(200);
    expect((await finance('/admin/v1/ledger/trial_balance')).status).toBe(401);
  });
});
