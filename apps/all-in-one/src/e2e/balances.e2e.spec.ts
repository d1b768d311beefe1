import { createCashPoint, createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

/** Balances and balance transactions: an integrator reads its own connections' accounts. */
describe('balances and balance transactions', () => {
  let service: TestService;
  let shop: Integrator;
  let other: Integrator;
  let customer: string;
  let business: string;
  let wholesaler: string;
  const payments: any[] = [];

  const get = (path: string, key = shop.apiKey) => service.http('GET', path, { key });
  const authorize = (paymentId: string) => service.http('POST', `/v1/test_helpers/payments/${paymentId}/authorize`, { key: shop.apiKey, body: { customer } });

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    other = await createIntegrator(service);
    customer = await createCustomer(service, 100_000_000);
    const connection = (kind: string) => service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name: kind, currency: 'DZD' } });
    business = (await connection('business')).body.id;
    wholesaler = (await connection('wholesaler')).body.id;

    for (const amount of [1_000_000, 2_000_000, 3_000_000]) {
      const payment = await createPayment(service, shop, { amount });
      expect((await authorize(payment.id)).body.status).toBe('succeeded');
      payments.push(payment);
    }
    // A declined payment moves nothing.
    const declined = await createPayment(service, shop, { amount: 1_000 });
    expect((await service.http('POST', `/v1/test_helpers/payments/${declined.id}/decline`, { key: shop.apiKey })).body.status).toBe('declined');

    // The business is topped up, then pays a supplier.
    expect((await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 5_000_000, currency: 'DZD' } })).status).toBe(201);
    const beneficiary = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Supplier', currency: 'DZD' } });
    const supplierPayment = await service.http('POST', '/v1/supplier_payments', {
      key: shop.apiKey,
      body: { payer_connection: business, beneficiary: beneficiary.body.id, amount: 1_000_000, currency: 'DZD', invoice_reference: 'INV-1' },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect((await service.http('POST', `/v1/test_helpers/supplier_payments/${supplierPayment.body.id}/approve`, { key: shop.apiKey })).body.status).toBe('succeeded');
    payments.push(supplierPayment.body);

    // A collection settles to the wholesaler.
    await createCashPoint(service);
    const collection = await service.http('POST', '/v1/collections', {
      key: shop.apiKey,
      body: { amount: 400_000, currency: 'DZD', order_reference: 'col-1', beneficiary_connection: wholesaler },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    const handedOver = await service.http('POST', `/v1/test_helpers/collections/${collection.body.id}/confirm_handover`, { key: shop.apiKey });
    expect(handedOver.body).toMatchObject({ status: 'collected_awaiting_deposit' });
    const settled = await service.http('POST', `/v1/test_helpers/collections/${collection.body.id}/validate_deposit`, { key: shop.apiKey, body: { amount_received: 400_000 } });
    expect(settled.body).toMatchObject({ status: 'settled' });
    payments.push(settled.body);
  });
  afterAll(() => service.stop());

  const allTransactions = async (connection: string): Promise<any[]> => {
    const all: any[] = [];
    let startingAfter = '';
    for (;;) {
      const page = await get(`/v1/balance_transactions?connection=${connection}&limit=2${startingAfter}`);
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      if (!page.body.has_more) return all;
      startingAfter = `&starting_after=${page.body.data.at(-1).id}`;
    }
  };

  it('GET /v1/balances/{connection} answers the balance of an own connection', async () => {
    const response = await get(`/v1/balances/${shop.merchant}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'balance', owner: shop.merchant, currency: 'DZD', available: 6_000_000 - 90_000 });
  });

  it('a payment credits the merchant +net_amount with its fee; a declined payment has none', async () => {
    const transactions = await allTransactions(shop.merchant);
    expect(transactions).toHaveLength(3);
    const [newest] = transactions;
    expect(newest).toEqual({
      id: expect.stringMatching(/^txn_[A-Za-z0-9]{20,}$/),
      object: 'balance_transaction',
      connection: shop.merchant,
      type: 'payment',
      source: payments[2].id,
      amount: 3_000_000 - 45_000,
      fee_amount: 45_000,
      currency: 'DZD',
      balance_after: 6_000_000 - 90_000,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it.each([
    ['the merchant', () => shop.merchant],
    ['the business', () => business],
    ['the wholesaler', () => wholesaler],
  ])('for %s, the amounts add up to available and each balance_after is the previous one plus amount', async (_who, connection) => {
    const transactions = (await allTransactions(connection())).reverse();
    let balance = 0;
    for (const transaction of transactions) {
      balance += transaction.amount;
      expect(transaction.balance_after).toBe(balance);
    }
    expect((await get(`/v1/balances/${connection()}`)).body.available).toBe(balance);
  });

  it('a supplier payment debits the business -(amount + fee_amount); a top-up credits it', async () => {
    const [debit, topup] = await allTransactions(business);
    expect(debit).toMatchObject({ type: 'supplier_payment', source: payments[3].id, amount: -(1_000_000 + 10_000), fee_amount: 10_000, balance_after: 5_000_000 - 1_010_000 });
    expect(topup).toMatchObject({ type: 'topup', source: expect.stringMatching(/^top_/), amount: 5_000_000, fee_amount: 0, balance_after: 5_000_000 });
  });

  it('a settlement credits the wholesaler +net_amount', async () => {
    const [credit] = await allTransactions(wholesaler);
    expect(credit).toMatchObject({ type: 'settlement', source: payments[4].id, amount: payments[4].settlement.net_amount, fee_amount: payments[4].settlement.fee_amount });
  });

  it('filters by source and creation time; retrieves one by id', async () => {
    const bySource = await get(`/v1/balance_transactions?connection=${shop.merchant}&source=${payments[0].id}`);
    expect(bySource.body.data).toHaveLength(1);
    expect(bySource.body.data[0].source).toBe(payments[0].id);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await get(`/v1/balance_transactions?connection=${shop.merchant}&created_gte=${future}`)).body.data).toEqual([]);
    expect((await get(`/v1/balance_transactions?connection=${shop.merchant}&created_lt=${future}`)).body.data).toHaveLength(3);
    const one = await get(`/v1/balance_transactions/${bySource.body.data[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(bySource.body.data[0]);
  });

  it('a starting_after outside the filtered list (another source, or outside the period) is 400', async () => {
    const all = (await get(`/v1/balance_transactions?connection=${shop.merchant}`)).body.data;
    const ofOtherSource = all.find((t: any) => t.source !== payments[0].id);
    const bySource = await get(`/v1/balance_transactions?connection=${shop.merchant}&source=${payments[0].id}&starting_after=${ofOtherSource.id}`);
    expect({ status: bySource.status, error: bySource.body.error }).toEqual({ status: 400, error: expect.objectContaining({ code: 'invalid_request', param: 'starting_after' }) });
    const past = await get(`/v1/balance_transactions?connection=${shop.merchant}&created_lt=2000-01-01T00:00:00Z&starting_after=${all[0].id}`);
    expect(past.status).toBe(400);
  });

  it("another integrator's connection and transactions are refused", async () => {
    expect((await get(`/v1/balances/${shop.merchant}`, other.apiKey)).status).toBe(403);
    const list = await get(`/v1/balance_transactions?connection=${shop.merchant}`, other.apiKey);
    expect(list.status).toBe(403);
    expect(list.body.error.code).toBe('connection_not_authorized');
    const [transaction] = await allTransactions(shop.merchant);
    const retrieve = await get(`/v1/balance_transactions/${transaction.id}`, other.apiKey);
    expect(retrieve.status).toBe(404);
    expect(retrieve.body.error.code).toBe('resource_not_found');
  });

  it('connection is required; a starting_after from another list is 400', async () => {
    const missing = await get('/v1/balance_transactions');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', param: 'connection' });
    const [ofBusiness] = await allTransactions(business);
    const foreignCursor = await get(`/v1/balance_transactions?connection=${shop.merchant}&starting_after=${ofBusiness.id}`);
    expect(foreignCursor.status).toBe(400);
  });
});
