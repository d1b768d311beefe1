import {
  balanceOf,
  createCustomer,
  createIntegrator,
  createPayment,
  expectBalancedTrialBalance,
  PUBLIC_BASE_URL,
  startTestService,
  type Integrator,
  type TestService,
} from './harness';
import { formatMoney } from '@pay/hosted-ui';

describe('Pay: payments over HTTP, all-in-one on PostgreSQL', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  const authorize = (paymentId: string, customer: string, key = shop.apiKey) =>
    service.http('POST', `/v1/test_helpers/payments/${paymentId}/authorize`, { key, body: { customer } });

  it('create payment: 201, status pending, authorization_url and expires_at (30 minutes) set', async () => {
    const payment = await createPayment(service, shop);
    expect(payment).toMatchObject({
      object: 'payment',
      status: 'pending',
      decline_reason: null,
      amount: 1_250_000,
      currency: 'DZD',
      merchant_connection: shop.merchant,
      return_url: 'https://shop.example/return',
      fee_amount: null,
      net_amount: null,
      succeeded_at: null,
    });
    expect(payment.id).toMatch(/^pay_[0-9A-Za-z]{20,}$/);
    expect(payment.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).toBe(30 * 60 * 1000);
    expect(payment.authorization_url).toBe(`${PUBLIC_BASE_URL}/hosted/payments/${payment.id}`);
  });

  it('the page at authorization_url answers 200 with an HTML page showing the payment', async () => {
    const payment = await createPayment(service, shop);
    const page = await service.http('GET', new URL(payment.authorization_url).pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain(formatMoney(1_250_000, 'DZD', 'fr')); // French unless the browser asks otherwise
    expect(formatMoney(1_250_000, 'DZD', 'fr')).toMatch(/^12\s500,00\sDA$/);
    expect(page.body).toContain(payment.order_reference);
  });

  it('retrieve returns the same payment; an unknown id is 404 resource_not_found', async () => {
    const payment = await createPayment(service, shop);
    const retrieved = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toEqual(payment);
    const unknown = await service.http('GET', '/v1/payments/pay_doesnotexist0000000000', { key: shop.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_not_found');
  });

  it("another integrator's payment is 404 on retrieve, cancel and the helpers", async () => {
    const payment = await createPayment(service, shop);
    const other = await createIntegrator(service);
    const customer = await createCustomer(service, 5_000_000);
    for (const [method, path, body] of [
      ['GET', `/v1/payments/${payment.id}`, undefined],
      ['POST', `/v1/payments/${payment.id}/cancel`, undefined],
      ['POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { customer }],
      ['POST', `/v1/test_helpers/payments/${payment.id}/decline`, undefined],
    ] as const) {
      const response = await service.http(method, path, { key: other.apiKey, body });
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({ path, status: 404, code: 'resource_not_found' });
    }
  });

  it('customer authorizes with sufficient balance: succeeded, debited, merchant credited net, fee to the platform', async () => {
    const customer = await createCustomer(service, 2_000_000);
    const merchantBefore = await balanceOf(service, shop.merchant);
    const payment = await createPayment(service, shop);
    const authorized = await authorize(payment.id, customer);
    expect(authorized.status).toBe(200);
    expect(authorized.body).toMatchObject({ status: 'succeeded', authorization_url: null, decline_reason: null });
    expect(authorized.body.fee_amount + authorized.body.net_amount).toBe(payment.amount);
    expect(authorized.body.fee_amount).toBe(18_750); // default schedule: 150 basis points
    expect(authorized.body.succeeded_at).toMatch(/Z$/);
    expect(await balanceOf(service, customer)).toBe(2_000_000 - 1_250_000);
    expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore + authorized.body.net_amount);

    const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`);
    expect(entries.body.data).toHaveLength(1);
    expect(entries.body.data[0].postings).toEqual(
      expect.arrayContaining([
        { account: customer, direction: 'debit', amount: 1_250_000, currency: 'DZD' },
        { account: shop.merchant, direction: 'credit', amount: authorized.body.net_amount, currency: 'DZD' },
        { account: 'platform:fees:DZD', direction: 'credit', amount: authorized.body.fee_amount, currency: 'DZD' },
      ]),
    );
    await expectBalancedTrialBalance(service);
  });

  it('balance insufficient: declined with insufficient_balance, nothing moves', async () => {
    const customer = await createCustomer(service, 1_000);
    const payment = await createPayment(service, shop);
    const response = await authorize(payment.id, customer);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'declined', decline_reason: 'insufficient_balance', authorization_url: null, fee_amount: null });
    expect(await balanceOf(service, customer)).toBe(1_000);
  });

  it("a customer whose account is in another currency: 400 currency_mismatch and the payment stays pending", async () => {
    const customer = await createCustomer(service, 5_000_000, 'MAD');
    const payment = await createPayment(service, shop);
    const response = await authorize(payment.id, customer);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('currency_mismatch');
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('pending');
  });

  it('an unknown customer on authorize is 400 invalid_request (param customer)', async () => {
    const payment = await createPayment(service, shop);
    const response = await authorize(payment.id, 'cus_nobody000000000000000000');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'customer' });
  });

  it('customer declines: declined with customer_declined', async () => {
    const payment = await createPayment(service, shop);
    const response = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/decline`, { key: shop.apiKey });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'declined', decline_reason: 'customer_declined', authorization_url: null });
  });

  it('cancel a pending payment: 200 with status canceled', async () => {
    const payment = await createPayment(service, shop);
    const response = await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: payment.id, status: 'canceled', authorization_url: null });
  });

  it('cancel, authorize or decline a final payment: 409 invalid_status, unchanged', async () => {
    const customer = await createCustomer(service, 5_000_000);
    const succeeded = await createPayment(service, shop);
    await authorize(succeeded.id, customer);
    const canceled = await createPayment(service, shop);
    await service.http('POST', `/v1/payments/${canceled.id}/cancel`, { key: shop.apiKey });
    for (const payment of [succeeded, canceled]) {
      const before = (await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body;
      for (const response of [
        await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey }),
        await authorize(payment.id, customer),
        await service.http('POST', `/v1/test_helpers/payments/${payment.id}/decline`, { key: shop.apiKey }),
      ]) {
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('invalid_status');
      }
      expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body).toEqual(before);
    }
    expect(await balanceOf(service, customer)).toBe(5_000_000 - 1_250_000);
  });

  it('expiry at the deadline on the service clock: advancing the clock past expires_at expires the payment', async () => {
    const payment = await createPayment(service, shop);
    const clockBefore = await service.http('GET', '/v1/test_helpers/clock', { key: shop.apiKey });
    expect(clockBefore.body.object).toBe('clock');

    const early = await service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds: 29 * 60 } });
    expect(early.status).toBe(200);
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('pending');

    const late = await service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds: 61 } });
    expect(Date.parse(late.body.now) - Date.parse(clockBefore.body.now)).toBeGreaterThanOrEqual(30 * 60 * 1000);
    const expired = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
    expect(expired.body).toMatchObject({ status: 'expired', authorization_url: null });

    const customer = await createCustomer(service, 5_000_000);
    const tooLate = await authorize(payment.id, customer);
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.error.code).toBe('invalid_status');
  });

  it('clock advance takes a positive integer number of seconds', async () => {
    for (const body of [{ seconds: 0 }, { seconds: -5 }, { seconds: 1.5 }, { seconds: '60' }, {}, { seconds: 1, extra: true }]) {
      const response = await service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
    }
  });
});

describe('outside sandbox', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ SANDBOX: 'false' });
  });
  afterAll(() => service.stop());

  it('the test helpers answer 404', async () => {
    const shop = await createIntegrator(service);
    const payment = await createPayment(service, shop);
    for (const [method, path] of [
      ['POST', `/v1/test_helpers/payments/${payment.id}/authorize`],
      ['POST', `/v1/test_helpers/payments/${payment.id}/decline`],
      ['GET', '/v1/test_helpers/clock'],
      ['POST', '/v1/test_helpers/clock/advance'],
    ]) {
      const response = await service.http(method!, path!, { key: shop.apiKey, body: method === 'GET' ? undefined : { seconds: 60, customer: 'cus_x' } });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });
});
