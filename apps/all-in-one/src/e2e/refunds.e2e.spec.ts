import { balanceOf, createCustomer, createIntegrator, createPayment, expectBalancedTrialBalance, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

/** Refunds of succeeded payments to the customer's balance. */
describe('refunds', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  /** A succeeded payment of `amount` by a new customer (funded with exactly the amount). */
  const paidPayment = async (amount = 1_000_000, integrator = shop) => {
    const customer = await createCustomer(service, amount);
    const payment = await createPayment(service, integrator, { amount });
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: integrator.apiKey, body: { customer } });
    expect(authorized.body.status).toBe('succeeded');
    return { payment: authorized.body, customer };
  };
  const refund = (body: unknown, key = idempotencyKey(), integrator = shop) =>
    service.http('POST', '/v1/refunds', { key: integrator.apiKey, body, headers: { 'Idempotency-Key': key } });

  it('a full refund (amount omitted) debits the merchant and credits the customer; the fee is not returned', async () => {
    const { payment, customer } = await paidPayment(1_000_000);
    // The merchant was credited the net only (the platform keeps the fee): fund it to cover the whole amount.
    await service.admin('POST', '/admin/v1/topups', { body: { account: shop.merchant, amount: 1_000_000, currency: 'DZD' } });
    const merchantBefore = await balanceOf(service, shop.merchant);
    const response = await refund({ payment: payment.id, reason: 'requested_by_customer' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^re_[A-Za-z0-9]{20,}$/),
      object: 'refund',
      payment: payment.id,
      amount: 1_000_000,
      currency: 'DZD',
      reason: 'requested_by_customer',
      status: 'succeeded',
      failure_reason: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(await balanceOf(service, customer)).toBe(1_000_000);
    expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore - 1_000_000);
    const retrieved = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
    expect(retrieved.body).toMatchObject({ status: 'succeeded', amount_refunded: 1_000_000, fee_amount: payment.fee_amount });
    const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${response.body.id}`);
    expect(entries.body.data).toHaveLength(1);
    expect(entries.body.data[0].postings).toEqual([
      { account: shop.merchant, direction: 'debit', amount: 1_000_000, currency: 'DZD' },
      { account: customer, direction: 'credit', amount: 1_000_000, currency: 'DZD' },
    ]);
    expect((await service.http('GET', `/v1/refunds/${response.body.id}`, { key: shop.apiKey })).body).toEqual(response.body);
    await expectBalancedTrialBalance(service);
  });

  it('partial refunds add up in amount_refunded; more than what is still refundable is 400 invalid_amount', async () => {
    const { payment } = await paidPayment(1_000_000);
    expect((await refund({ payment: payment.id, amount: 300_000 })).body).toMatchObject({ status: 'succeeded', amount: 300_000, reason: null });
    expect((await refund({ payment: payment.id, amount: 500_000 })).body).toMatchObject({ status: 'succeeded', amount: 500_000 });
    const over = await refund({ payment: payment.id, amount: 200_001 });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'invalid_amount', param: 'amount' });
    const rest = await refund({ payment: payment.id });
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 200_000 });
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.amount_refunded).toBe(1_000_000);
    expect((await refund({ payment: payment.id })).body.error.code).toBe('invalid_amount');
    const listed = await service.http('GET', `/v1/refunds?payment=${payment.id}`, { key: shop.apiKey });
    expect(listed.body).toMatchObject({ object: 'list', has_more: false });
    expect(listed.body.data.map((r: any) => r.amount)).toEqual([200_000, 500_000, 300_000]);
  });

  it('a merchant balance below the amount: the refund is failed with insufficient_balance and nothing moves', async () => {
    const poor = await createIntegrator(service);
    const { payment, customer } = await paidPayment(100_000, poor);
    // The merchant holds the net (the fee was kept): a full refund is more than it has.
    const merchantBefore = await balanceOf(service, poor.merchant);
    expect(merchantBefore).toBeLessThan(100_000);
    const response = await refund({ payment: payment.id }, idempotencyKey(), poor);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: 'failed', failure_reason: 'insufficient_balance', amount: 100_000 });
    expect(await balanceOf(service, poor.merchant)).toBe(merchantBefore);
    expect(await balanceOf(service, customer)).toBe(0);
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: poor.apiKey })).body.amount_refunded).toBe(0);
    // The reservation is released: what the merchant can cover is still refundable.
    expect((await refund({ payment: payment.id, amount: merchantBefore }, idempotencyKey(), poor)).body.status).toBe('succeeded');
  });

  it('events refund.succeeded and refund.failed carry the refund', async () => {
    const events = await service.http('GET', '/v1/events?type=refund.succeeded&limit=100', { key: shop.apiKey });
    expect(events.body.data.length).toBeGreaterThan(0);
    expect(events.body.data[0].data).toMatchObject({ object: 'refund', status: 'succeeded', object_version: expect.any(Number) });
  });

  it('idempotency: the same key and body answer the same refund, moving money once', async () => {
    const { payment, customer } = await paidPayment(400_000);
    const key = idempotencyKey();
    const first = await refund({ payment: payment.id, amount: 100_000 }, key);
    const again = await refund({ payment: payment.id, amount: 100_000 }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(service, customer)).toBe(100_000);
  });

  it('the list filtered by payment refuses a starting_after of another payment’s refund (400) and pages its own', async () => {
    await service.admin('POST', '/admin/v1/topups', { body: { account: shop.merchant, amount: 2_000_000, currency: 'DZD' } });
    const first = (await paidPayment(1_000_000)).payment;
    const second = (await paidPayment(1_000_000)).payment;
    const a = (await refund({ payment: first.id, amount: 100_000 })).body;
    const other = (await refund({ payment: second.id, amount: 100_000 })).body;
    const b = (await refund({ payment: first.id, amount: 100_000 })).body;
    const page = await service.http('GET', `/v1/refunds?payment=${first.id}&starting_after=${other.id}`, { key: shop.apiKey });
    expect({ status: page.status, error: page.body.error }).toEqual({ status: 400, error: expect.objectContaining({ code: 'invalid_request', param: 'starting_after' }) });
    const own = await service.http('GET', `/v1/refunds?payment=${first.id}&starting_after=${b.id}`, { key: shop.apiKey });
    expect(own.body.data.map((r: any) => r.id)).toEqual([a.id]);
  });

  it('concurrent refunds of one payment are listed newest first by created_at, and page through once', async () => {
    await service.admin('POST', '/admin/v1/topups', { body: { account: shop.merchant, amount: 1_000_000, currency: 'DZD' } });
    const { payment } = await paidPayment(1_000_000);
    const made = await Promise.all(Array.from({ length: 8 }, () => refund({ payment: payment.id, amount: 10_000 })));
    expect(made.map((r) => r.status)).toEqual(Array(8).fill(201));
    const listed = (await service.http('GET', `/v1/refunds?payment=${payment.id}&limit=100`, { key: shop.apiKey })).body.data;
    const times = listed.map((r: any) => r.created_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(listed.map((r: any) => r.id))).toEqual(new Set(made.map((r) => r.body.id)));
    const paged: string[] = [];
    for (let cursor = '', more = true; more; ) {
      const page = await service.http('GET', `/v1/refunds?payment=${payment.id}&limit=3${cursor}`, { key: shop.apiKey });
      paged.push(...page.body.data.map((r: any) => r.id));
      more = page.body.has_more;
      cursor = `&starting_after=${paged[paged.length - 1]}`;
    }
    expect(paged).toEqual(listed.map((r: any) => r.id));
  });

  it('a payment that is not succeeded is 409; a cash payment or another object is 400; another integrator’s payment is 404', async () => {
    const pending = await createPayment(service, shop);
    expect((await refund({ payment: pending.id })).body.error.code).toBe('invalid_status');
    expect((await refund({ payment: pending.id })).status).toBe(409);
    const cash = await service.http('POST', '/v1/cash_payments', {
      key: shop.apiKey,
      body: { amount: 50_000, currency: 'DZD', order_reference: 'c-1', merchant_connection: shop.merchant },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect((await refund({ payment: cash.body.id })).body.error).toMatchObject({ code: 'invalid_request', param: 'payment' });
    expect((await refund({ payment: shop.merchant })).status).toBe(400);
    const other = await createIntegrator(service);
    const { payment } = await paidPayment(10_000, other);
    expect((await refund({ payment: payment.id })).status).toBe(404);
    expect((await refund({ payment: 'pay_unknown00000000000000000' })).status).toBe(404);
    expect((await refund({ payment: payment.id, amount: 0 })).body.error.code).toBe('invalid_amount');
    expect((await refund({ payment: payment.id, reason: 'x'.repeat(256) })).body.error).toMatchObject({ code: 'invalid_request', param: 'reason' });
  });

  it('20 concurrent partial refunds whose sum exceeds the amount never refund more than it', async () => {
    const { payment, customer } = await paidPayment(1_000_000);
    const responses = await Promise.all(Array.from({ length: 20 }, () => refund({ payment: payment.id, amount: 70_000 })));
    const succeeded = responses.filter((r) => r.status === 201 && r.body.status === 'succeeded');
    const refused = responses.filter((r) => r.status !== 201);
    expect(succeeded.length + refused.length).toBe(20);
    expect(succeeded.length).toBe(14); // 14 × 70 000 = 980 000 ≤ 1 000 000 < 15 × 70 000
    for (const r of refused) expect(['invalid_amount', 'idempotency_key_in_use']).toContain(r.body.error.code);
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.amount_refunded).toBe(980_000);
    expect(await balanceOf(service, customer)).toBe(980_000);
    expect(await balanceOf(service, shop.merchant)).toBeGreaterThanOrEqual(0);
    await expectBalancedTrialBalance(service);
  });
});
