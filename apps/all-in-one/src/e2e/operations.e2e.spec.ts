import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

const ROOT = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OPS = '/admin/v1/operations';
/** The retry schedule after each failed attempt (libs/webhooks retry-schedule.ts), in seconds: 8 attempts in all. */
const RETRY_DELAYS_S = [5, 300, 1800, 7200, 18000, 36000, 36000];

/**
 * The operator's API and CLI (admin key) against the running service: failed deliveries and their bulk
 * redelivery, failing endpoints flagged after an hour of the service clock, parked events and their
 * replay, who may call them, and `payments ops …` as a real process. The tests share one service and
 * its clock, so they run in order: the clock only moves forward.
 */
describe('operator API and CLI', () => {
  let service: TestService;
  let db: Pool;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService();
    db = new Pool({ connectionString: service.databaseUrl, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const receiver = async (...replies: { status: number }[]) => {
    const started = await new Receiver().start();
    started.reply(...replies);
    receivers.push(started);
    return started;
  };
  const register = async (shop: Integrator, url: string) => {
    const response = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url, enabled_events: ['payment.succeeded'] } });
    expect(response.status).toBe(201);
    return response.body as { id: string };
  };
  const pay = async (shop: Integrator) => {
    const payment = await createPayment(service, shop);
    const customer = await createCustomer(service, 5_000_000);
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } });
    expect(authorized.body.status).toBe('succeeded');
    return authorized.body as { id: string };
  };
  const advance = async (shop: Integrator, seconds: number) => {
    expect((await service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds } })).status).toBe(200);
  };
  /** Waits (generously) until the endpoint's newest delivery satisfies `done`; answers it. */
  const deliveryOf = async (shop: Integrator, endpointId: string, done: (delivery: any) => boolean) => {
    let last: unknown;
    for (let waited = 0; waited < 30_000; waited += 100) {
      const { body } = await service.http('GET', `/v1/webhook_endpoints/${endpointId}/deliveries`, { key: shop.apiKey });
      last = body.data?.[0];
      if (last && done(last)) return last as any;
      await sleep(100);
    }
    throw new Error(`the delivery to ${endpointId} never got there: ${JSON.stringify(last)}`);
  };
  const failingEndpoint = async (endpointId: string) => {
    const { status, body } = await service.admin('GET', `${OPS}/failing_endpoints?limit=100`);
    expect(status).toBe(200);
    return body.data.find((e: any) => e.id === endpointId);
  };

  it('only the admin key: no key 401, an integrator key 401, a finance key 403, on every operations route', async () => {
    const shop = await createIntegrator(service);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Ops test' } });
    const routes: [string, string][] = [
      ['GET', 'subscriptions'],
      ['GET', 'parked_events'],
      ['POST', 'parked_events/replay'],
      ['GET', 'failed_deliveries'],
      ['POST', 'failed_deliveries/redeliver'],
      ['GET', 'failing_endpoints'],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined;
      const answers = {
        none: await service.http(method, `${OPS}/${path}`, { body }),
        integrator: await service.http(method, `${OPS}/${path}`, { key: shop.apiKey, body }),
        finance: await service.http(method, `${OPS}/${path}`, { key: finance.body.api_key, body }),
      };
      expect({ path, none: answers.none.status, integrator: answers.integrator.status, finance: answers.finance.status }).toEqual({ path, none: 401, integrator: 401, finance: 403 });
      expect(answers.finance.body.error.code).toBe('forbidden');
    }
  });

  it('a delivery refused through every retry is listed failed; bulk redelivery sends the same event once more; a repeat redelivers nothing', async () => {
    const shop = await createIntegrator(service);
    const hook = await receiver(...RETRY_DELAYS_S.map(() => ({ status: 500 })), { status: 500 }); // 8 refusals, then 200
    const endpoint = await register(shop, hook.url);
    await pay(shop);
    await hook.waitFor(1);
    await deliveryOf(shop, endpoint.id, (d) => d.attempts >= 1);

    const retrying = await service.admin('GET', `${OPS}/failed_deliveries?endpoint_id=${endpoint.id}`);
    expect(retrying.status).toBe(200);
    expect(retrying.body).toEqual({
      object: 'list',
      data: [
        {
          id: expect.stringMatching(/^whd_/),
          object: 'failed_delivery',
          endpoint: endpoint.id,
          integrator: shop.id,
          event: expect.stringMatching(/^evt_/),
          event_type: 'payment.succeeded',
          status: 'retrying',
          attempts: 1,
          last_error: 'status 500',
          last_attempt_at: expect.any(String),
        },
      ],
      has_more: false,
    });

    // Through the retry schedule on the sandbox clock, each retry scheduled before the clock moves.
    for (const [index, seconds] of RETRY_DELAYS_S.entries()) {
      await deliveryOf(shop, endpoint.id, (d) => d.attempts >= index + 1);
      await advance(shop, seconds + 5);
      await hook.waitFor(index + 2);
    }
    const given = await deliveryOf(shop, endpoint.id, (d) => d.status === 'failed');
    expect(given.attempts).toBe(8);

    const failed = await service.admin('GET', `${OPS}/failed_deliveries?endpoint_id=${endpoint.id}`);
    expect(failed.body.data).toEqual([expect.objectContaining({ id: given.id, event: given.event, status: 'failed', attempts: 8, last_error: 'status 500' })]);
    const all = await service.admin('GET', `${OPS}/failed_deliveries?limit=100`);
    expect(all.body.data.map((d: any) => d.id)).toContain(given.id);

    const redelivered = await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, { body: { endpoint_id: endpoint.id } });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toEqual({ object: 'redelivery', endpoint: endpoint.id, redelivered: 1 });
    await hook.waitFor(9);
    expect(hook.received[8]!.headers['webhook-id']).toBe(given.event);
    expect(JSON.parse(hook.received[8]!.body).id).toBe(given.event);
    await deliveryOf(shop, endpoint.id, (d) => d.status === 'succeeded');

    const again = await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, { body: { endpoint_id: endpoint.id } });
    expect(again.body).toEqual({ object: 'redelivery', endpoint: endpoint.id, redelivered: 0 });
    const everyEndpoint = await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, {});
    expect(everyEndpoint.body).toMatchObject({ endpoint: null, redelivered: 0 });
    await sleep(1_500);
    expect(hook.received).toHaveLength(9);
    expect((await service.admin('GET', `${OPS}/failed_deliveries?endpoint_id=${endpoint.id}`)).body.data).toEqual([]);
    // Its run of failures ended with the success: no longer a failing endpoint.
    expect(await failingEndpoint(endpoint.id)).toBeUndefined();

    expect((await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, { body: { endpoint_id: 'we_doesnotexist' } })).status).toBe(404);
    expect((await service.admin('GET', `${OPS}/failed_deliveries?endpoint_id=we_doesnotexist`)).status).toBe(404);
    expect((await service.admin('GET', `${OPS}/failed_deliveries?endpoint_id=evt_x`)).body.error).toMatchObject({ code: 'invalid_request', param: 'endpoint_id' });
    expect((await service.admin('GET', `${OPS}/failed_deliveries?starting_after=whd_notinthelist`)).body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
    expect((await service.admin('GET', `${OPS}/failed_deliveries?limit=101`)).body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    expect((await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, { body: { endpoint: endpoint.id } })).body.error).toMatchObject({ code: 'invalid_request', param: 'endpoint' });
  }, 240_000);

  it('an endpoint failing for more than an hour of the service clock is flagged, not before', async () => {
    const shop = await createIntegrator(service);
    const dead = await receiver(...Array.from({ length: 50 }, () => ({ status: 500 })));
    const endpoint = await register(shop, dead.url);
    await pay(shop);
    await dead.waitFor(1);
    // Dated when the failure is recorded: wait for it before the clock moves.
    await deliveryOf(shop, endpoint.id, (d) => d.attempts >= 1);

    const fresh = await failingEndpoint(endpoint.id);
    expect(fresh).toEqual({ id: endpoint.id, object: 'endpoint_health', integrator: shop.id, url: dead.url, status: 'enabled', failing_since: expect.any(String), flagged: false });
    await advance(shop, 59 * 60);
    expect(await failingEndpoint(endpoint.id)).toMatchObject({ failing_since: fresh.failing_since, flagged: false });
    await advance(shop, 2 * 60);
    expect(await failingEndpoint(endpoint.id)).toMatchObject({ failing_since: fresh.failing_since, flagged: true });

    const listed = (await service.admin('GET', `${OPS}/failing_endpoints?limit=100`)).body.data;
    const since = listed.map((e: any) => e.failing_since);
    expect(since).toEqual([...since].sort());
    expect(listed.every((e: any) => e.secret === undefined && e.status === 'enabled')).toBe(true);
    expect((await service.admin('GET', `${OPS}/failing_endpoints?starting_after=we_x`)).status).toBe(400);
  }, 120_000);

  describe('parked events', () => {
    /** Parks a payment's last event for `payments.payment-views`, as its subscription would after repeated failures. */
    const park = async (error: string) => {
      const shop = await createIntegrator(service);
      const payment = await pay(shop);
      const { rows } = await db.query<{ event_id: string; stream_id: string; type: string }>(
        `SELECT event_id::text, stream_id, type FROM es_events WHERE stream_id LIKE '%' || $1 ORDER BY position DESC LIMIT 1`,
        [payment.id],
      );
      expect(rows).toHaveLength(1);
      const event = rows[0]!;
      // A subscription parks only what it has passed: wait for its checkpoint to reach the event, or a
      // replay would meet a payment whose creation the view has not yet seen.
      for (let waited = 0; ; waited += 100) {
        const passed = await db.query(
          `SELECT 1 FROM es_checkpoints c, es_events e WHERE c.subscription_id = 'payments.payment-views' AND e.event_id = $1::uuid
             AND (c.commit_position, c.prepare_position) >= (e.transaction_id::text::bigint, e.position)`,
          [event.event_id],
        );
        if (passed.rowCount === 1) break;
        if (waited > 60_000) throw new Error(`payments.payment-views did not pass event ${event.event_id} within 60 s`);
        await sleep(100);
      }
      await db.query(`INSERT INTO es_parked_events (subscription_id, event_id, stream_id, type, error) VALUES ('payments.payment-views', $1, $2, $3, $4)`, [
        event.event_id,
        event.stream_id,
        event.type,
        error,
      ]);
      return event;
    };

    it('are listed with their error and counted on their subscription; replaying one handles it and unparks it; a repeat replays nothing', async () => {
      const event = await park('Error: projection failed (parked by the operations test)');
      const listed = await service.admin('GET', `${OPS}/parked_events?limit=100`);
      expect(listed.status).toBe(200);
      expect(listed.body.errors).toEqual([]);
      expect(listed.body.data).toContainEqual({
        object: 'parked_event',
        subscription: 'payments.payment-views',
        event: event.event_id,
        stream: event.stream_id,
        type: event.type,
        error: 'Error: projection failed (parked by the operations test)',
        parked_at: expect.any(String),
      });
      const subscriptions = await service.admin('GET', `${OPS}/subscriptions`);
      expect(subscriptions.status).toBe(200);
      expect(subscriptions.body.errors).toEqual([]);
      expect(subscriptions.body.data).toContainEqual(expect.objectContaining({ id: 'payments.payment-views', object: 'subscription', app: 'payments', parked_events: 1, running: true }));
      expect(new Set(subscriptions.body.data.map((s: any) => s.app))).toEqual(new Set(['payments', 'cash', 'supplier-payments', 'collections']));

      const replayed = await service.admin('POST', `${OPS}/parked_events/replay`, { body: { subscription_id: 'payments.payment-views', event_id: event.event_id } });
      expect(replayed.status).toBe(200);
      expect(replayed.body).toEqual({ object: 'parked_event_replay', replayed: 1, failed: [], errors: [] });
      const after = await service.admin('GET', `${OPS}/parked_events?limit=100`);
      expect(after.body.data.map((p: any) => p.event)).not.toContain(event.event_id);
      expect((await db.query('SELECT 1 FROM es_parked_events WHERE event_id = $1', [event.event_id])).rowCount).toBe(0);
      expect((await service.admin('POST', `${OPS}/parked_events/replay`, { body: {} })).body).toMatchObject({ replayed: 0, failed: [], errors: [] });
    });

    it('replay is validated: an event needs its subscription; a subscription of no subscribing app is refused', async () => {
      const replay = (body: unknown) => service.admin('POST', `${OPS}/parked_events/replay`, { body });
      expect((await replay({ event_id: 'x' })).body.error).toMatchObject({ code: 'invalid_request', param: 'subscription_id' });
      // null counts as missing (found by schemathesis: it was a 500).
      expect((await replay({ event_id: '0', subscription_id: null })).body.error).toMatchObject({ code: 'invalid_request', param: 'subscription_id' });
      expect((await service.admin('POST', `${OPS}/failed_deliveries/redeliver`, { body: { endpoint_id: null } })).body).toMatchObject({ object: 'redelivery', endpoint: null });
      expect((await replay({ subscription_id: 'ledger.views' })).body.error).toMatchObject({ code: 'invalid_request', param: 'subscription_id' });
      expect((await replay({ subscription_id: 'payments.payment-views', extra: 1 })).body.error).toMatchObject({ code: 'invalid_request', param: 'extra' });
      expect((await service.admin('GET', `${OPS}/subscriptions?limit=1`)).body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    });

    it('payments ops (the CLI, a real process): tables of subscriptions, parked events, failed deliveries and failing endpoints; replay and redelivery', async () => {
      const cli = (args: string[], adminKey = service.adminKey) =>
        run(process.execPath, [join(ROOT, 'tools', 'payments.js'), 'ops', ...args], { cwd: ROOT, env: { ...process.env, PAY_BASE_URL: service.url, PAY_ADMIN_KEY: adminKey }, timeout: 120_000 });

      const subscriptions = await cli(['subscriptions']);
      expect(subscriptions.stdout).toMatch(/^SUBSCRIPTION\s+CHECKPOINT\s+UPDATED\s+LAG S\s+PARKED\s+RUNNING$/m);
      expect(subscriptions.stdout).toMatch(/^payments\.payment-views\s+\d+\s+\S+\s+[\d.]+\s+0\s+yes$/m);

      const event = await park('Error: parked for the CLI\n    at a stack line');
      const parked = await cli(['parked']);
      expect(parked.stdout).toMatch(new RegExp(`^payments\\.payment-views\\s+${event.event_id}\\s+${event.type.replace(/\./g, '\\.')}\\s+\\S+\\s+Error: parked for the CLI$`, 'm'));
      const replayed = await cli(['parked', '--replay', '--subscription', 'payments.payment-views', '--event', event.event_id]);
      expect(replayed.stdout).toMatch(/^Replayed 1 parked event; 0 failed again\.$/m);
      expect((await cli(['parked'])).stdout).not.toContain(event.event_id);

      // The endpoint flagged by the previous test: failing, its delivery retrying.
      const endpoints = await cli(['endpoints']);
      expect(endpoints.stdout).toMatch(/^we_\w+\s+int_\w+\s+http:\/\/127\.0\.0\.1:\d+\/hooks\s+\S+\s+FLAGGED$/m);
      const flagged = endpoints.stdout.match(/^(we_\w+)\s.*FLAGGED$/m)![1]!;
      const deliveries = await cli(['deliveries', '--endpoint', flagged]);
      expect(deliveries.stdout).toMatch(new RegExp(`^whd_\\w+\\s+${flagged}\\s+evt_\\w+\\s+payment\\.succeeded\\s+retrying\\s+\\d+\\s+\\S+\\s+status 500$`, 'm'));
      expect((await cli(['deliveries', '--endpoint', flagged, '--redeliver'])).stdout).toMatch(new RegExp(`^Redelivered 0 failed deliveries of ${flagged}\\.$`, 'm'));

      const usage = await cli(['parked', '--replay', '--event', event.event_id]).catch((error: { code: number; stderr: string }) => error);
      expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('--event needs --subscription') });
      const refused = await cli(['subscriptions'], 'admin_wrongkey').catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('authentication_required') });
    }, 180_000);
  });
});
