import { Webhook } from 'standardwebhooks';
import { DISPATCHER_DEFAULTS } from '@pay/webhooks-feature';
import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('events and signed webhooks (contract section 6)', () => {
  let service: TestService;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService();
  });
  // Each test's receivers stop with it: a slow one holding its requests must not reach into the next test.
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await service.stop();
  });

  const receiver = async () => {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  };
  const register = async (shop: Integrator, url: string, enabledEvents: string[] = ['*']) => {
    const response = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url, enabled_events: enabledEvents } });
    expect(response.status).toBe(201);
    return response.body;
  };
  const advance = (shop: Integrator, seconds: number) => service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds } });
  const pay = async (shop: Integrator, customer?: string) => {
    const payment = await createPayment(service, shop);
    const payer = customer ?? (await createCustomer(service, 5_000_000));
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer: payer } });
    expect(authorized.body.status).toBe('succeeded');
    return authorized.body;
  };

  describe('webhook endpoints', () => {
    it('create answers 201 with a whsec_ secret, shown only there; retrieve, list and delete complete it', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      const endpoint = await register(shop, hook.url, ['payment.succeeded']);
      expect(endpoint).toEqual({
        id: expect.stringMatching(/^we_[0-9A-Za-z]{20,}$/),
        object: 'webhook_endpoint',
        url: hook.url,
        enabled_events: ['payment.succeeded'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{20,}$/),
        status: 'enabled',
        disabled_reason: null,
        created_at: expect.any(String),
      });
      const { secret: _shownOnce, ...withoutSecret } = endpoint;
      expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey })).body).toEqual(withoutSecret);
      expect((await service.http('GET', '/v1/webhook_endpoints', { key: shop.apiKey })).body.data).toEqual([withoutSecret]);
      const deleted = await service.http('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey });
      expect(deleted).toMatchObject({ status: 200, body: { id: endpoint.id, object: 'webhook_endpoint', deleted: true } });
      expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey })).status).toBe(404);
      expect((await service.http('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey })).status).toBe(404);
    });

    it('list: newest first, limit and starting_after, has_more', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await register(shop, `${hook.url}/${i}`)).id);
      const first = await service.http('GET', '/v1/webhook_endpoints?limit=2', { key: shop.apiKey });
      expect(first.body).toMatchObject({ object: 'list', has_more: true });
      expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
      const second = await service.http('GET', `/v1/webhook_endpoints?limit=2&starting_after=${ids[1]}`, { key: shop.apiKey });
      expect(second.body).toEqual({ object: 'list', data: [expect.objectContaining({ id: ids[0] })], has_more: false });
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'starting_after=we_unknown000000000000000', 'color=red']) {
        expect((await service.http('GET', `/v1/webhook_endpoints?${query}`, { key: shop.apiKey })).body.error.code).toBe('invalid_request');
      }
    });

    it.each([
      ['http outside loopback', 'http://example.com/hooks'],
      ['a private address', 'https://10.0.0.1/hooks'],
      ['link-local (cloud metadata)', 'https://169.254.169.254/latest'],
      ['a unique-local IPv6 address', 'https://[fd00::1]/hooks'],
      ['not a URL', 'hooks'],
      // In sandbox only http(s)://127.0.0.1, localhost and [::1], written so, may be loopback.
      ['another loopback address in sandbox', 'https://127.0.0.2/'],
      ['an IPv4-mapped loopback in sandbox', 'https://[::ffff:127.0.0.1]/'],
      ['loopback as a decimal number in sandbox', 'https://2130706433/'],
      ['loopback in hexadecimal in sandbox', 'https://0x7f000001/'],
      ['loopback shortened to 127.1 in sandbox', 'https://127.1/'],
      ['loopback shortened to 127.1 over http in sandbox', 'http://127.1/'],
      ['port 0 on loopback in sandbox', 'http://127.0.0.1:0/x'],
      ['port 0 on a public address', 'https://1.1.1.1:0/'],
    ])('refuses %s: 400 invalid_request (param url), no traffic sent', async (_case, url) => {
      const shop = await createIntegrator(service);
      const response = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url, enabled_events: ['*'] } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    });

    it('refuses unknown event types in enabled_events', async () => {
      const shop = await createIntegrator(service);
      const response = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: 'http://127.0.0.1:9/x', enabled_events: ['payment.teleported'] } });
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'enabled_events' });
    });
  });

  describe('delivery', () => {
    it('payment.succeeded is delivered signed per Standard Webhooks; the signature fails with another secret', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      const endpoint = await register(shop, hook.url);
      const payment = await pay(shop);
      await hook.waitFor(1);
      const [delivery] = hook.received;
      const body = JSON.parse(delivery!.body);
      expect(body).toMatchObject({ object: 'event', type: 'payment.succeeded' });
      expect(body.id).toMatch(/^evt_[0-9A-Za-z]{20,}$/);
      expect(delivery!.headers['content-type']).toBe('application/json');
      expect(delivery!.headers['webhook-id']).toBe(body.id);
      expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(body.data).toMatchObject({
        id: payment.id,
        object: 'payment',
        status: 'succeeded',
        amount: payment.amount,
        currency: 'DZD',
        order_reference: payment.order_reference,
        merchant_connection: shop.merchant,
        fee_amount: payment.fee_amount,
        net_amount: payment.net_amount,
        succeeded_at: payment.succeeded_at,
        object_version: expect.any(Number),
      });
      const headers = delivery!.headers as Record<string, string>;
      expect(() => new Webhook(endpoint.secret).verify(delivery!.body, headers)).not.toThrow();
      expect(() => new Webhook(`whsec_${Buffer.from('another secret of 24 bytes').toString('base64')}`).verify(delivery!.body, headers)).toThrow();
      // The event is listed, and retrievable.
      expect((await service.http('GET', `/v1/events/${body.id}`, { key: shop.apiKey })).body).toEqual(body);
    });

    it('every status change emits an event: canceled, declined, expired; versions order them', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      await register(shop, hook.url);
      const canceled = await createPayment(service, shop);
      await service.http('POST', `/v1/payments/${canceled.id}/cancel`, { key: shop.apiKey });
      const declined = await createPayment(service, shop);
      await service.http('POST', `/v1/test_helpers/payments/${declined.id}/decline`, { key: shop.apiKey });
      const expired = await createPayment(service, shop);
      await advance(shop, 31 * 60);
      await hook.waitFor(3);
      const byObject = Object.fromEntries(hook.events().map((e) => [e.data.id, e]));
      expect(byObject[canceled.id]).toMatchObject({ type: 'payment.canceled', data: { status: 'canceled', object_version: 2 } });
      expect(byObject[declined.id]).toMatchObject({ type: 'payment.declined', data: { status: 'declined', decline_reason: 'customer_declined' } });
      expect(byObject[expired.id]).toMatchObject({ type: 'payment.expired', data: { status: 'expired' } });
    });

    it('a receiver that answers 500 then 200 gets the same id and body twice, the retry due 5 s later on the service clock', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      hook.reply({ status: 500 });
      await register(shop, hook.url);
      await pay(shop);
      await hook.waitFor(1);
      await sleep(300);
      expect(hook.received).toHaveLength(1); // no retry before it is due
      await advance(shop, 5);
      await hook.waitFor(2);
      const [first, second] = hook.received;
      expect(second!.body).toBe(first!.body);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      const eventId = JSON.parse(first!.body).id;
      const deliveries = await service.http('GET', `/v1/events/${eventId}/deliveries`, { key: shop.apiKey });
      expect(deliveries.body.data).toHaveLength(1);
      expect(deliveries.body.data[0]).toMatchObject({ status: 'succeeded', attempts: 2, last_response_status: 200, attempt_history: [{ status_code: 500 }, { status_code: 200, error: null }] });
    });

    it('after the last retry (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) the delivery is failed and stays listed', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      hook.reply(...Array.from({ length: 8 }, () => ({ status: 503 })));
      await register(shop, hook.url);
      await pay(shop);
      await hook.waitFor(1);
      for (const [index, seconds] of [5, 300, 1800, 7200, 18000, 36000, 36000].entries()) {
        // The service clock is real time plus the advances: the margin is the real time the check allows
        // between an attempt and the next advance (a loaded machine takes more than a second).
        const margin = Math.min(10, Math.floor(seconds / 2));
        await advance(shop, seconds - margin);
        expect(hook.received).toHaveLength(index + 1); // not yet due
        await advance(shop, margin);
        await hook.waitFor(index + 2);
      }
      await advance(shop, 100_000);
      expect(hook.received).toHaveLength(8);
      const eventId = JSON.parse(hook.received[0]!.body).id;
      const deliveries = await service.http('GET', `/v1/events/${eventId}/deliveries`, { key: shop.apiKey });
      expect(deliveries.body.data[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
      expect(deliveries.body.data[0]).toMatchObject({ attempts: 8, last_response_status: 503 });
      expect(deliveries.body.data[0].attempt_history).toHaveLength(8);
      expect((await service.http('GET', `/v1/events/${eventId}`, { key: shop.apiKey })).status).toBe(200);
    });

    it('a slow receiver does not delay another endpoint', async () => {
      const shop = await createIntegrator(service);
      const slow = await receiver();
      const fast = await receiver();
      const count = DISPATCHER_DEFAULTS.inFlightPerEndpointMax + 4; // more than the slow endpoint's concurrency
      slow.reply(...Array.from({ length: 2 * count }, () => ({ status: 200, delayMs: 120_000 })));
      await register(shop, slow.url);
      await register(shop, fast.url);
      const customer = await createCustomer(service, 50_000_000);
      for (let i = 0; i < count; i++) await pay(shop, customer);
      // Every event reaches the fast endpoint while the slow one has not answered a single request yet.
      await fast.waitFor(count, 60_000);
      expect(slow.answered).toBe(0);
      expect(slow.received.length).toBeGreaterThan(0);
      expect(slow.maxOpen).toBeLessThanOrEqual(DISPATCHER_DEFAULTS.inFlightPerEndpointMax);
    });

    it('retries falling due together never hold more attempts open on one endpoint than its limit', async () => {
      const cap = DISPATCHER_DEFAULTS.inFlightPerEndpointMax;
      // Twice the cap: on a loaded machine the first attempts may spread over more than the 5 s before the
      // first retries fall due in real time; at least `cap` of them still fall due together at the advance.
      const count = 2 * cap;
      const shop = await createIntegrator(service);
      const slow = await receiver();
      slow.reply(...Array.from({ length: count }, () => ({ status: 500 })), ...Array.from({ length: count }, () => ({ status: 200, delayMs: 1_000 })));
      await register(shop, slow.url);
      const customer = await createCustomer(service, 50_000_000);
      // Paid at once, so that every first attempt falls within the 5 s before the first retries are due
      // on the real-time part of the service clock.
      await Promise.all(Array.from({ length: count }, () => pay(shop, customer)));
      await slow.waitFor(count);
      expect(slow.maxOpen).toBeLessThanOrEqual(cap);
      await advance(shop, 5); // the retries fall due at once
      await slow.waitFor(2 * count);
      expect(slow.maxOpen).toBe(cap);
    });

    it('enabled_events filters; a deleted endpoint gets nothing more', async () => {
      const shop = await createIntegrator(service);
      const canceledOnly = await receiver();
      const everything = await receiver();
      await register(shop, canceledOnly.url, ['payment.canceled']);
      const deletedLater = await register(shop, everything.url);
      await pay(shop);
      const payment = await createPayment(service, shop);
      await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey });
      await canceledOnly.waitFor(1);
      await everything.waitFor(2);
      expect(canceledOnly.events().map((e) => e.type)).toEqual(['payment.canceled']);
      await service.http('DELETE', `/v1/webhook_endpoints/${deletedLater.id}`, { key: shop.apiKey });
      await pay(shop);
      const another = await createPayment(service, shop);
      await service.http('POST', `/v1/payments/${another.id}/cancel`, { key: shop.apiKey });
      await canceledOnly.waitFor(2);
      await sleep(300);
      expect(everything.received).toHaveLength(2);
    });

    it('redeliver sends the event again: same id and body, fresh timestamp', async () => {
      const shop = await createIntegrator(service);
      const hook = await receiver();
      await register(shop, hook.url);
      await pay(shop);
      await hook.waitFor(1);
      const eventId = JSON.parse(hook.received[0]!.body).id;
      await sleep(1_100);
      const redelivered = await service.http('POST', `/v1/events/${eventId}/redeliver`, { key: shop.apiKey });
      expect(redelivered).toMatchObject({ status: 200, body: { id: eventId, object: 'event' } });
      await hook.waitFor(2);
      expect(hook.received[1]!.body).toBe(hook.received[0]!.body);
      expect(hook.received[1]!.headers['webhook-id']).toBe(eventId);
      expect(Number(hook.received[1]!.headers['webhook-timestamp'])).toBeGreaterThan(Number(hook.received[0]!.headers['webhook-timestamp']));
    });
  });

  describe('events API', () => {
    it('lists the integrator’s events newest first with the list envelope; another integrator sees none of them', async () => {
      const shop = await createIntegrator(service);
      const customer = await createCustomer(service, 50_000_000);
      const payments = [await pay(shop, customer), await pay(shop, customer), await pay(shop, customer)];
      const page = await service.http('GET', '/v1/events?limit=2', { key: shop.apiKey });
      expect(page.body).toMatchObject({ object: 'list', has_more: true });
      expect(page.body.data.map((e: any) => e.data.id)).toEqual([payments[2].id, payments[1].id]);
      const rest = await service.http('GET', `/v1/events?starting_after=${page.body.data[1].id}`, { key: shop.apiKey });
      expect(rest.body.data.map((e: any) => e.data.id)).toEqual([payments[0].id]);
      expect(rest.body.has_more).toBe(false);
      const other = await createIntegrator(service);
      expect((await service.http('GET', '/v1/events', { key: other.apiKey })).body.data).toEqual([]);
      expect((await service.http('GET', `/v1/events/${page.body.data[0].id}`, { key: other.apiKey })).status).toBe(404);
      expect((await service.http('POST', `/v1/events/${page.body.data[0].id}/redeliver`, { key: other.apiKey })).status).toBe(404);
    });
  });
});
