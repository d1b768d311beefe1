import { Webhook } from 'standardwebhooks';
import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DAY_S = 86_400;

/** Webhook endpoints' lifecycle: update and disable, secret rotation, deliveries, recovery, automatic disabling. */
describe('webhook endpoints lifecycle', () => {
  let service: TestService;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
    await Promise.all(receivers.map((r) => r.stop()));
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
  const pay = async (shop: Integrator) => {
    const payment = await createPayment(service, shop);
    const customer = await createCustomer(service, 5_000_000);
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } });
    expect(authorized.body.status).toBe('succeeded');
    return authorized.body;
  };
  const advance = (shop: Integrator, seconds: number) => service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds } });
  /** Waits (generously) until the endpoint's only delivery has `count` attempts recorded. */
  const attemptsRecorded = async (shop: Integrator, endpointId: string, count: number) => {
    for (let waited = 0; waited < 20_000; waited += 50) {
      const { body } = await service.http('GET', `/v1/webhook_endpoints/${endpointId}/deliveries`, { key: shop.apiKey });
      if (body.data[0]?.attempts >= count) return;
      await sleep(50);
    }
    throw new Error(`delivery to ${endpointId} did not reach ${count} recorded attempts`);
  };
  const update = (shop: Integrator, id: string, body: unknown) => service.http('POST', `/v1/webhook_endpoints/${id}`, { key: shop.apiKey, body });

  it('updates url and enabled_events with the same rules as at creation; unknown parameters are refused', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    const endpoint = await register(shop, hook.url, ['payment.succeeded']);
    const updated = await update(shop, endpoint.id, { url: `${hook.url}/v2`, enabled_events: ['payment.canceled', 'payment.succeeded'] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: endpoint.id, url: `${hook.url}/v2`, enabled_events: ['payment.canceled', 'payment.succeeded'], status: 'enabled' });
    expect(updated.body.secret).toBeUndefined();
    expect((await update(shop, endpoint.id, { url: 'http://10.0.0.1/hook' })).body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    expect((await update(shop, endpoint.id, { url: 'ftp://example.com' })).status).toBe(400);
    expect((await update(shop, endpoint.id, { status: 'paused' })).body.error).toMatchObject({ code: 'invalid_request', param: 'status' });
    expect((await update(shop, endpoint.id, { secret: 'whsec_x' })).body.error).toMatchObject({ code: 'invalid_request', param: 'secret' });
    const other = await createIntegrator(service);
    expect((await update(other, endpoint.id, { status: 'disabled' })).status).toBe(404);
  });

  it('an update parameter sent as JSON null counts as missing: url, enabled_events and status stay as they were', async () => {
    const shop = await createIntegrator(service);
    const endpoint = await register(shop, 'https://1.1.1.1/hooks', ['payment.succeeded']);
    const unchanged = { id: endpoint.id, url: 'https://1.1.1.1/hooks', enabled_events: ['payment.succeeded'], status: 'enabled' };
    const bodies = [{ url: null }, { enabled_events: null }, { status: null }, { url: null, enabled_events: null, status: null }];
    const answers = [];
    for (const body of bodies) {
      const response = await update(shop, endpoint.id, body);
      answers.push({ body, status: response.status, endpoint: response.body });
    }
    expect(answers).toEqual(bodies.map((body) => ({ body, status: 200, endpoint: expect.objectContaining(unchanged) })));
    expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey })).body).toMatchObject(unchanged);
    expect((await update(shop, endpoint.id, { colour: null })).body.error).toMatchObject({ code: 'invalid_request', param: 'colour' });
  });

  it('a disabled endpoint is sent nothing, and the events of the disabled period are not sent later', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    const endpoint = await register(shop, hook.url);
    const disabled = await update(shop, endpoint.id, { status: 'disabled' });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_reason: 'disabled_by_integrator' });
    const missed = await pay(shop);
    await sleep(1_500);
    expect(hook.received).toHaveLength(0);
    expect((await update(shop, endpoint.id, { status: 'enabled' })).body).toMatchObject({ status: 'enabled', disabled_reason: null });
    const seen = await pay(shop);
    await hook.waitFor(1);
    await sleep(1_000);
    expect(hook.events().map((e) => e.data.id)).toEqual([seen.id]);
    expect(hook.events().map((e) => e.data.id)).not.toContain(missed.id);
  });

  it('rotate_secret answers a new secret; for 24 hours deliveries carry both signatures, then only the new one', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    const endpoint = await register(shop, hook.url);
    const rotated = await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { key: shop.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: shop.apiKey })).body.secret).toBeUndefined();

    await pay(shop);
    await hook.waitFor(1);
    const [during] = hook.received;
    const signatures = String(during!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [rotated.body.secret, endpoint.secret]) {
      expect(() => new Webhook(secret).verify(during!.body, during!.headers as Record<string, string>)).not.toThrow();
    }

    await advance(shop, DAY_S + 60);
    await pay(shop);
    await hook.waitFor(2);
    const after = hook.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(rotated.body.secret).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });

  it('lists an endpoint’s deliveries with their attempts, filtered by status', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    hook.reply({ status: 500 });
    const endpoint = await register(shop, hook.url, ['payment.succeeded']);
    const payment = await pay(shop);
    await hook.waitFor(1);
    await sleep(500);
    const pending = await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=pending`, { key: shop.apiKey });
    expect(pending.status).toBe(200);
    expect(pending.body.data).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        object: 'webhook_delivery',
        event: expect.stringMatching(/^evt_/),
        endpoint: endpoint.id,
        status: 'pending',
        attempts: 1,
        last_attempt_at: expect.any(String),
        next_attempt_at: expect.any(String),
        last_response_status: 500,
        created_at: expect.any(String),
        attempt_history: [{ attempted_at: expect.any(String), status_code: 500, latency_ms: expect.any(Number), error: expect.any(String) }],
      },
    ]);
    expect(pending.body.data[0].last_attempt_at).toBe(pending.body.data[0].attempt_history[0].attempted_at);
    const event = await service.http('GET', `/v1/events/${pending.body.data[0].event}`, { key: shop.apiKey });
    expect(event.body.data.id).toBe(payment.id);
    // One shape of webhook_delivery wherever it is answered: the event's deliveries answer the same object.
    const ofEvent = await service.http('GET', `/v1/events/${pending.body.data[0].event}/deliveries`, { key: shop.apiKey });
    expect(ofEvent.body).toEqual({ object: 'list', data: pending.body.data, has_more: false });
    await advance(shop, 10);
    await hook.waitFor(2);
    await sleep(500);
    const succeeded = await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=succeeded`, { key: shop.apiKey });
    expect(succeeded.body.data).toHaveLength(1);
    expect(succeeded.body.data[0]).toMatchObject({ status: 'succeeded', attempts: 2, last_response_status: 200, next_attempt_at: null });
    expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=pending`, { key: shop.apiKey })).body.data).toEqual([]);
    expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=lost`, { key: shop.apiKey })).status).toBe(400);
  });

  it('an event’s deliveries are a list like any other: oldest first, limit (default 10), starting_after, a true has_more', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    const endpoints: string[] = [];
    for (let i = 0; i < 12; i++) endpoints.push((await register(shop, `${hook.url}/${i}`)).id);
    await pay(shop);
    const events = await service.http('GET', '/v1/events?type=payment.succeeded', { key: shop.apiKey });
    const eventId = events.body.data[0].id;
    const path = `/v1/events/${eventId}/deliveries`;
    let all: any;
    for (let waited = 0; waited < 20_000; waited += 100) {
      all = await service.http('GET', `${path}?limit=100`, { key: shop.apiKey });
      if (all.body.data?.length === 12) break;
      await sleep(100);
    }
    expect({ status: all.status, count: all.body.data?.length, has_more: all.body.has_more }).toEqual({ status: 200, count: 12, has_more: false });
    const times = all.body.data.map((d: any) => d.created_at);
    expect([...times].sort()).toEqual(times);
    const first = await service.http('GET', path, { key: shop.apiKey });
    expect({ count: first.body.data.length, has_more: first.body.has_more }).toEqual({ count: 10, has_more: true });
    const paged: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const response = await service.http('GET', `${path}?limit=5${cursor}`, { key: shop.apiKey });
      expect(response.status).toBe(200);
      paged.push(...response.body.data.map((d: any) => d.id));
      if (!response.body.has_more) break;
      cursor = `&starting_after=${response.body.data[response.body.data.length - 1].id}`;
    }
    expect(paged).toEqual(all.body.data.map((d: any) => d.id));
    const other = await service.http('GET', `/v1/webhook_endpoints/${endpoints[0]}/deliveries`, { key: shop.apiKey });
    expect(other.status).toBe(200);
    const elsewhere = await createIntegrator(service);
    await register(elsewhere, `${hook.url}/elsewhere`);
    await pay(elsewhere);
    const theirs = (await service.http('GET', '/v1/events?type=payment.succeeded', { key: elsewhere.apiKey })).body.data[0].id;
    let foreign: any;
    for (let waited = 0; waited < 20_000 && !foreign; waited += 100) {
      foreign = (await service.http('GET', `/v1/events/${theirs}/deliveries`, { key: elsewhere.apiKey })).body.data[0];
      if (!foreign) await sleep(100);
    }
    for (const query of [`starting_after=${foreign.id}`, 'starting_after=whd_unknown', 'limit=0', 'limit=101']) {
      const response = await service.http('GET', `${path}?${query}`, { key: shop.apiKey });
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({ query, status: 400, code: 'invalid_request' });
    }
  });

  it('filters an endpoint’s deliveries by status canceled: the retries a disable canceled', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    hook.reply({ status: 500 });
    const endpoint = await register(shop, hook.url, ['payment.succeeded']);
    await pay(shop);
    await attemptsRecorded(shop, endpoint.id, 1);
    expect((await update(shop, endpoint.id, { status: 'disabled' })).status).toBe(200);
    const canceled = await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=canceled`, { key: shop.apiKey });
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toEqual([expect.objectContaining({ endpoint: endpoint.id, status: 'canceled', attempts: 1, next_attempt_at: null })]);
    expect((await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=pending`, { key: shop.apiKey })).body.data).toEqual([]);
  });

  it('recover sends again the failed deliveries of events created since a time, once', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver();
    const failures = Array.from({ length: 8 }, () => ({ status: 503 }));
    hook.reply(...failures);
    const endpoint = await register(shop, hook.url, ['payment.succeeded']);
    const since = new Date(Date.now() - 60_000).toISOString();
    await pay(shop);
    await hook.waitFor(1);
    for (const [index, seconds] of [5, 300, 1800, 7200, 18000, 36000, 36000].entries()) {
      await attemptsRecorded(shop, endpoint.id, index + 1); // its retry is scheduled before the clock moves
      await advance(shop, seconds + 5);
      await hook.waitFor(index + 2);
    }
    await sleep(500);
    const failed = await service.http('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=failed`, { key: shop.apiKey });
    expect(failed.body.data).toHaveLength(1);

    const serviceNow = (await service.http('GET', '/v1/test_helpers/clock', { key: shop.apiKey })).body.now;
    const none = await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { key: shop.apiKey, body: { since: serviceNow } });
    expect(none.body).toEqual({ object: 'recovery', endpoint: endpoint.id, redelivered: 0 });
    const recovered = await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { key: shop.apiKey, body: { since } });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toEqual({ object: 'recovery', endpoint: endpoint.id, redelivered: 1 });
    await hook.waitFor(9);
    expect(hook.events()[8]!.id).toBe(failed.body.data[0].event);
    expect((await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { key: shop.apiKey, body: {} })).body.error).toMatchObject({ code: 'invalid_request', param: 'since' });
  });

  it.each([
    ['year 0000, which PostgreSQL does not hold', '0000-01-01T00:00:00Z'],
    ['year 0001 whose zone takes it into year 0000', '0001-01-01T00:30:00+01:00'],
    ['a date without a time', '2026-11-22'],
    ['a time without a zone', '2026-11-22T10:00:00'],
    ['a day the calendar lacks', '2026-02-30T00:00:00Z'],
  ])('recover refuses a since of %s with 400 invalid_request', async (_case, since) => {
    const shop = await createIntegrator(service);
    const endpoint = await register(shop, 'https://1.1.1.1/hooks');
    const response = await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { key: shop.apiKey, body: { since } });
    expect({ status: response.status, error: response.body.error }).toEqual({ status: 400, error: expect.objectContaining({ code: 'invalid_request', param: 'since' }) });
  });

  it('recover takes a since in year 0001 and one in year 0099 as themselves', async () => {
    const shop = await createIntegrator(service);
    const endpoint = await register(shop, 'https://1.1.1.1/hooks');
    for (const since of ['0001-01-01T00:00:00Z', '0099-12-31T23:59:59+01:00']) {
      const response = await service.http('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { key: shop.apiKey, body: { since } });
      expect(response.body).toEqual({ object: 'recovery', endpoint: endpoint.id, redelivered: 0 });
    }
  });

  it('an endpoint whose every attempt failed for 5 days is disabled, and the integrator is told on its other endpoints', async () => {
    const shop = await createIntegrator(service);
    const dead = await receiver();
    dead.reply(...Array.from({ length: 100 }, () => ({ status: 500 })));
    const healthy = await receiver();
    const failing = await register(shop, dead.url, ['payment.succeeded']);
    await register(shop, healthy.url, ['*']);
    await pay(shop);
    await dead.waitFor(1);
    await healthy.waitFor(1);
    // The failure is dated when it is recorded: recorded after the clock moved, it would start the 5 days later.
    await attemptsRecorded(shop, failing.id, 1);
    for (let day = 0; day < 5; day++) await advance(shop, DAY_S);
    await pay(shop);
    await healthy.waitFor(3);
    const told = healthy.events().find((e) => e.type === 'webhook_endpoint.disabled');
    expect(told).toMatchObject({ type: 'webhook_endpoint.disabled', data: { id: failing.id, status: 'disabled', disabled_reason: 'failing_for_5_days' } });
    expect(told!.data.secret).toBeUndefined();
    const retrieved = await service.http('GET', `/v1/webhook_endpoints/${failing.id}`, { key: shop.apiKey });
    expect(retrieved.body).toMatchObject({ status: 'disabled', disabled_reason: 'failing_for_5_days' });
    const listed = await service.http('GET', `/v1/events?type=webhook_endpoint.disabled&object_id=${failing.id}`, { key: shop.apiKey });
    expect(listed.body.data).toHaveLength(1);
    const attempts = dead.received.length;
    await pay(shop);
    await sleep(1_500);
    expect(dead.received).toHaveLength(attempts);
  });
});
