import { InvalidRequestError, NotFoundError, Payments, PaymentsError, WebhookVerificationError, type Payment } from '@pay/sdk';
import { createCustomer, createIntegrator, startTestService, type Integrator, type TestService } from './harness';
import { createServer } from 'node:http';
import { Receiver } from './receiver';
import { gatewayRoutes } from './route-table';

/** The Pay quick start through @pay/sdk, against the real service (sandbox), webhooks verified by the SDK. */
describe('@pay/sdk against the service', () => {
  let service: TestService;
  let shop: Integrator;
  let client: Payments;
  let receiver: Receiver;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    client = new Payments({ apiKey: shop.apiKey, baseUrl: service.url });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it('creates, authorizes, lists and partly refunds a payment; the balance and its transactions agree; the webhook verifies', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['payment.succeeded'] });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const customer = await createCustomer(service, 5_000_000);
    const payments: Payment[] = [];
    for (const order of ['sdk-1001', 'sdk-1002']) {
      const created = await client.payments.create({
        amount: 1_250_000,
        currency: 'DZD',
        order_reference: order,
        merchant_connection: shop.merchant,
        return_url: 'https://shop.example/return',
      });
      expect(created).toMatchObject({ object: 'payment', status: 'pending', amount: 1_250_000, amount_refunded: 0 });
      const authorized = await client.testHelpers.payments.authorize(created.id, { customer });
      expect(authorized.status).toBe('succeeded');
      payments.push(authorized);
    }
    const [first, second] = payments as [Payment, Payment];
    expect(await client.payments.retrieve(first.id)).toMatchObject({ id: first.id, status: 'succeeded', net_amount: first.net_amount });

    // Auto-pagination with one object per page walks both, newest first; .page() reads one page.
    const listed: string[] = [];
    for await (const payment of client.payments.list({ status: 'succeeded', limit: 1 })) listed.push(payment.id);
    expect(listed).toEqual([second.id, first.id]);
    expect(await client.payments.list({ order_reference: 'sdk-1001' }).page()).toEqual({ object: 'list', data: [expect.objectContaining({ id: first.id })], has_more: false });

    const refund = await client.refunds.create({ payment: first.id, amount: 250_000, reason: 'returned item' });
    expect(refund).toMatchObject({ object: 'refund', payment: first.id, amount: 250_000, status: 'succeeded' });
    expect(await client.refunds.retrieve(refund.id)).toEqual(refund);
    expect((await client.refunds.list({ payment: first.id }).toArray()).map((r) => r.id)).toEqual([refund.id]);
    expect((await client.payments.retrieve(first.id)).amount_refunded).toBe(250_000);

    const balance = await client.balances.retrieve(shop.merchant);
    expect(balance).toEqual({ object: 'balance', owner: shop.merchant, currency: 'DZD', available: first.net_amount! + second.net_amount! - 250_000 });
    const transactions = await client.balanceTransactions.list({ connection: shop.merchant, limit: 2 }).toArray();
    expect(transactions.map((t) => [t.type, t.source, t.amount])).toEqual([
      ['refund', refund.id, -250_000],
      ['payment', second.id, second.net_amount],
      ['payment', first.id, first.net_amount],
    ]);
    expect(transactions[0]!.balance_after).toBe(balance.available);
    expect(await client.balanceTransactions.retrieve(transactions[0]!.id)).toEqual(transactions[0]);

    // The service's deliveries verify with the SDK on the raw body, and not once re-serialized with another secret.
    await receiver.waitFor(2);
    const delivered = receiver.received.map((r) => client.webhooks.verify(r.body, r.headers, endpoint.secret!));
    expect(delivered.map((e) => [e.type, e.data['id']]).sort()).toEqual([['payment.succeeded', first.id], ['payment.succeeded', second.id]].sort());
    expect(() => client.webhooks.verify(receiver.received[0]!.body, receiver.received[0]!.headers, `whsec_${Buffer.from('another secret').toString('base64')}`)).toThrow(WebhookVerificationError);
    expect((await client.events.list({ type: 'payment.succeeded', object_id: first.id }).page()).data).toHaveLength(1);
  });

  it('answers typed errors with code, param and Request-Id', async () => {
    const invalid = await client.payments
      .create({ amount: 1_000, currency: 'DZD', order_reference: 'sdk-bad', merchant_connection: shop.merchant, return_url: 'http://shop.example/return' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', param: 'return_url', requestId: expect.any(String) });

    const missing = await client.payments.retrieve('pay_doesnotexist0000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(PaymentsError);
    expect(missing).toMatchObject({ status: 404, code: 'resource_not_found' });

    const unauthenticated = await new Payments({ apiKey: 'sk_wrong', baseUrl: service.url }).balances.retrieve(shop.merchant).catch((e: unknown) => e);
    expect(unauthenticated).toMatchObject({ status: 401, code: 'authentication_required' });
  });

  it("creating or rolling an API key with the caller's idempotency key replays the first answer", async () => {
    const key = `sdk-keys-${Date.now()}`;
    const made = await client.apiKeys.create({ name: 'reporting', scopes: ['payments:read'] }, { idempotencyKey: key });
    expect(await client.apiKeys.create({ name: 'reporting', scopes: ['payments:read'] }, { idempotencyKey: key })).toEqual(made);
    const rolled = await client.apiKeys.roll(made.id, {}, { idempotencyKey: `${key}-roll` });
    expect(await client.apiKeys.roll(made.id, {}, { idempotencyKey: `${key}-roll` })).toEqual(rolled);
    expect((await client.apiKeys.list({ limit: 100 }).toArray()).filter((k) => k.name === 'reporting')).toHaveLength(2);
  });

  it('has a method for every /v1 route the gateway registers', async () => {
    const called = new Set<string>();
    const recorder = createServer((request, response) => {
      const path = new URL(request.url!, 'http://x').pathname.replace(/\/x_id(?=\/|$)/g, '/:id');
      called.add(`${request.method} ${path}`);
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [], has_more: false }));
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    try {
      const sdk = new Payments({ apiKey: 'sk_x', baseUrl: `http://127.0.0.1:${(recorder.address() as { port: number }).port}` });
      const x = 'x_id';
      const body = {} as any;
      const helpers = sdk.testHelpers;
      await Promise.all([
        ...[sdk.payments, sdk.cashPayments, sdk.supplierPayments].flatMap((r) => [r.create(body), r.retrieve(x), r.list().page(), r.cancel(x)]),
        sdk.collections.create(body), sdk.collections.retrieve(x), sdk.collections.list().page(), sdk.collections.handoverCode(x),
        sdk.refunds.create(body), sdk.refunds.retrieve(x), sdk.refunds.list().page(),
        sdk.bankAccounts.create(body), sdk.bankAccounts.retrieve(x), sdk.bankAccounts.list().page(),
        sdk.payouts.create(body), sdk.payouts.retrieve(x), sdk.payouts.list().page(), sdk.payouts.cancel(x),
        sdk.beneficiaries.retrieve(x, { payer_connection: 'conn_1' }),
        sdk.balances.retrieve(x), sdk.balanceTransactions.list({ connection: 'conn_1' }).page(), sdk.balanceTransactions.retrieve(x),
        sdk.events.list().page(), sdk.events.retrieve(x), sdk.events.redeliver(x), sdk.events.deliveries(x).page(),
        sdk.webhookEndpoints.create(body), sdk.webhookEndpoints.retrieve(x), sdk.webhookEndpoints.list().page(), sdk.webhookEndpoints.update(x, {}),
        sdk.webhookEndpoints.delete(x), sdk.webhookEndpoints.rotateSecret(x), sdk.webhookEndpoints.deliveries(x).page(), sdk.webhookEndpoints.recover(x, { since: new Date() }),
        helpers.payments.authorize(x, { customer: 'cus_1' }), helpers.payments.decline(x), helpers.cashPayments.pay(x, { cash_point: 'cp_1', amount: 1 }),
        helpers.supplierPayments.approve(x), helpers.supplierPayments.reject(x),
        helpers.collections.confirmHandover(x), helpers.collections.validateDeposit(x, { amount_received: 0 }),
        helpers.clock.retrieve(), helpers.clock.advance({ seconds: 1 }),
        sdk.apiKeys.create(body), sdk.apiKeys.retrieve(x), sdk.apiKeys.list().page(), sdk.apiKeys.roll(x), sdk.apiKeys.revoke(x),
        sdk.auditEvents.list().page(),
      ]);
    } finally {
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
    }
    const routes = gatewayRoutes({ sandbox: true })
      .filter((route) => route.path.startsWith('/v1/'))
      .map((route) => `${route.method} ${route.path.replace(/:[A-Za-z_]+/g, ':id')}`);
    expect([...called].sort()).toEqual([...new Set(routes)].sort());
  });
});
