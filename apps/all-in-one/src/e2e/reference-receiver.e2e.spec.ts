import { AttemptRefusedError, startReceiver, type RunningReceiver } from '@pay/example-receiver';
import { Payments } from '@pay/sdk';
import { createTestDatabase } from '@pay/testing';
import { freePort } from '@pay/topology';
import { balanceOf, createCustomer, createIntegrator, startTestService, type Integrator, type TestService } from './harness';

const WAIT_MS = 60_000;

/** Polls `read` until `done` holds (generous bound: CI machines are shared and slow). */
async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The reference receiver (examples/receiver) against the real service: signed deliveries, retrieves and creates through @pay/sdk. */
describe('reference webhook receiver against the service', () => {
  let service: TestService;
  let shop: Integrator;
  let client: Payments;
  let receiver: RunningReceiver;
  const logs: string[] = [];

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    client = new Payments({ apiKey: shop.apiKey, baseUrl: service.url });
    // The endpoint's URL names the receiver's port, and the receiver needs the endpoint's secret: port first.
    const port = await freePort();
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/webhooks` });
    receiver = await startReceiver({
      databaseUrl: await createTestDatabase('reference_receiver'),
      apiKey: shop.apiKey,
      baseUrl: service.url,
      webhookSecret: endpoint.secret!,
      port,
      pollMs: 200,
      log: (line) => logs.push(line),
    });
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it('an order paid through an attempt is paid once in the receiver; a redelivery of its event changes nothing', async () => {
    const customer = await createCustomer(service, 5_000_000);
    await receiver.orders.create({ reference: 'rr-1001', kind: 'payment', amount: 1_250_000, currency: 'DZD', connection: shop.merchant, returnUrl: 'https://shop.example/return' });
    const attempt = await receiver.orders.createAttempt('rr-1001');
    expect(attempt).toMatchObject({ orderReference: 'rr-1001', objectId: expect.stringMatching(/^pay_/), status: 'pending' });
    // Rule 8: the service says the first attempt is still pending, so no second one.
    await expect(receiver.orders.createAttempt('rr-1001')).rejects.toThrow(AttemptRefusedError);

    const authorized = await client.testHelpers.payments.authorize(attempt.objectId!, { customer });
    expect(authorized.status).toBe('succeeded');
    const paid = await waitUntil('the order paid', () => receiver.orders.get('rr-1001'), (order) => order?.status === 'paid');
    expect(paid).toMatchObject({ status: 'paid', paidBy: attempt.objectId, review: false, attempts: [{ objectId: attempt.objectId, status: 'succeeded' }] });

    const [event] = (await client.events.list({ type: 'payment.succeeded', object_id: attempt.objectId! }).page()).data;
    const received = async () => (await receiver.pool.query('SELECT * FROM received_events WHERE id = $1', [event!.id])).rows;
    const [first] = await received();
    expect(first).toMatchObject({ type: 'payment.succeeded', outcome: 'order paid', processed_at: expect.any(Date) });
    const balance = await balanceOf(service, shop.merchant);

    await client.events.redeliver(event!.id);
    await waitUntil('the redelivery acknowledged', async () => logs.filter((line) => line.startsWith(`duplicate ${event!.id}`)).length, (n) => n >= 1);
    expect(await received()).toEqual([first]); // one row, processed once, at the same time
    expect(logs.filter((line) => line.startsWith(`processed ${event!.id}`))).toHaveLength(1);
    expect(await receiver.orders.get('rr-1001')).toEqual(paid);
    expect(await balanceOf(service, shop.merchant)).toBe(balance);
    await expect(receiver.orders.createAttempt('rr-1001')).rejects.toThrow('order rr-1001 is already paid');
  });
});
