import { Client as PgClient } from 'pg';
import { createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type Response, type TestService } from './harness';
import { iban, statement } from './payouts-files';
import { Receiver } from './receiver';

/**
 * The audit trail (contract section 16): every successful change the contract lists, recorded once
 * with its actor, integrator, target and Request-Id; reads and failures are not; lists for the
 * integrator (a ["*"] key) and for the back office; append-only in the database; no secret anywhere.
 */
describe('audit trail', () => {
  let service: TestService;
  let shop: Integrator;
  let other: Integrator;
  let receiver: Receiver;
  const secrets: string[] = [];

  beforeAll(async () => {
    service = await startTestService({ LOG_LEVEL: 'debug' }, { captureLogs: true });
    shop = await createIntegrator(service);
    other = await createIntegrator(service);
    secrets.push(service.adminKey, shop.apiKey, other.apiKey);
    receiver = await new Receiver().start();
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  const adminEvents = async (query: string): Promise<any[]> => {
    const response = await service.admin('GET', `/admin/v1/audit_events?limit=100&${query}`);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  /** The audit events of one target, oldest first. */
  const eventsOf = async (targetId: string): Promise<any[]> => (await adminEvents('')).filter((e) => e.target.id === targetId).reverse();
  const requestId = (response: Response) => response.headers.get('request-id');

  /** Checks that `response` (a success) was recorded once, as `action` on its own object, by `actor`. */
  const expectRecorded = async (response: Response, action: string, actor: { type: string; id: string | null }, integrator: string | null) => {
    expect(response.status).toBeLessThan(300);
    const events = await eventsOf(response.body.id);
    const matching = events.filter((e) => e.action === action);
    expect({ action, count: matching.length }).toEqual({ action, count: 1 });
    expect(matching[0]).toEqual({
      id: expect.stringMatching(/^aud_[A-Za-z0-9]{20,}$/),
      object: 'audit_event',
      action,
      actor,
      integrator,
      target: { object: response.body.object, id: response.body.id },
      request_id: requestId(response),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    return matching[0];
  };
  const ADMIN = { type: 'admin', id: null };

  it('admin changes: integrator, key, connection, customer, beneficiary, cash point, top-up, each recorded once by the admin', async () => {
    const integrator = await service.admin('POST', '/admin/v1/integrators', { body: { name: 'Audited shop' } });
    secrets.push(integrator.body.api_key);
    await expectRecorded(integrator, 'integrator.created', ADMIN, integrator.body.id);
    const key = await service.admin('POST', `/admin/v1/integrators/${integrator.body.id}/api_keys`);
    secrets.push(key.body.api_key);
    await expectRecorded(key, 'api_key.created', ADMIN, integrator.body.id);
    await expectRecorded(await service.admin('POST', `/admin/v1/api_keys/${key.body.id}/revoke`), 'api_key.revoked', ADMIN, integrator.body.id);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Audit finance' } });
    secrets.push(finance.body.api_key);
    await expectRecorded(finance, 'api_key.created', ADMIN, null);
    const business = await service.admin('POST', '/admin/v1/connections', { body: { integrator: integrator.body.id, kind: 'business', name: 'B', currency: 'DZD' } });
    await expectRecorded(business, 'connection.created', ADMIN, integrator.body.id);
    const customer = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone: '+213555000111', pin: '4321', currency: 'DZD' } });
    await expectRecorded(customer, 'customer.created', ADMIN, null);
    const beneficiary = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business: business.body.id, account_name: 'Supplies', currency: 'DZD' } });
    await expectRecorded(beneficiary, 'beneficiary.created', ADMIN, integrator.body.id);
    await expectRecorded(await service.admin('POST', `/admin/v1/beneficiaries/${beneficiary.body.id}/revoke`), 'beneficiary.revoked', ADMIN, integrator.body.id);
    await expectRecorded(await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point', address: '1 rue' } }), 'cash_point.created', ADMIN, null);
    const key1 = idempotencyKey();
    const topup = await service.admin('POST', '/admin/v1/topups', { body: { account: business.body.id, amount: 1_000, currency: 'DZD' }, headers: { 'Idempotency-Key': key1 } });
    await expectRecorded(topup, 'topup.created', ADMIN, integrator.body.id);
    // An idempotent replay answers the same top-up and is not recorded again.
    const replay = await service.admin('POST', '/admin/v1/topups', { body: { account: business.body.id, amount: 1_000, currency: 'DZD' }, headers: { 'Idempotency-Key': key1 } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(topup.body.id);
    expect((await eventsOf(topup.body.id)).filter((e) => e.action === 'topup.created')).toHaveLength(1);
    // A top-up of a customer's account belongs to no integrator.
    await expectRecorded(await service.admin('POST', '/admin/v1/topups', { body: { account: customer.body.id, amount: 1_000, currency: 'DZD' } }), 'topup.created', ADMIN, null);
  });

  it('an integrator\'s first key, a business user and a cash agent are each recorded as their own creation', async () => {
    const key = idempotencyKey();
    const create = () => service.admin('POST', '/admin/v1/integrators', { body: { name: 'Keyed shop' }, headers: { 'Idempotency-Key': key } });
    const integrator = await create();
    secrets.push(integrator.body.api_key);
    await expectRecorded(integrator, 'integrator.created', ADMIN, integrator.body.id);
    const keyEvents = (await eventsOf(integrator.body.api_key_id)).filter((e) => e.action === 'api_key.created');
    expect(keyEvents).toEqual([expect.objectContaining({ actor: ADMIN, integrator: integrator.body.id, target: { object: 'api_key', id: integrator.body.api_key_id }, request_id: requestId(integrator) })]);
    // A replay of the create records neither again.
    expect((await create()).headers.get('idempotent-replayed')).toBe('true');
    expect((await eventsOf(integrator.body.api_key_id)).map((e) => e.action)).toEqual(['api_key.created']);
    expect((await eventsOf(integrator.body.id)).map((e) => e.action)).toEqual(['integrator.created']);

    secrets.push('correct horse battery');
    const business = await service.admin('POST', '/admin/v1/connections', { body: { integrator: integrator.body.id, kind: 'business', name: 'Supplies', currency: 'DZD' } });
    const user = await service.admin('POST', '/admin/v1/business_users', { body: { business: business.body.id, name: 'Nadia', login: `nadia-${business.body.id}`, password: 'correct horse battery' } });
    await expectRecorded(user, 'business_user.created', ADMIN, integrator.body.id);
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosk', address: '2 rue' } });
    const agent = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point.body.id, name: 'Karim', login: `karim-${point.body.id}`, password: 'correct horse battery' } });
    await expectRecorded(agent, 'agent.created', ADMIN, null);
    // A taken login is refused (400): nothing recorded.
    const before = (await adminEvents('')).length;
    const taken = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point.body.id, name: 'Karim', login: `karim-${point.body.id}`, password: 'correct horse battery' } });
    expect(taken.status).toBe(400);
    expect((await adminEvents('')).length).toBe(before);
  });

  it('integrator changes: keys, webhook endpoints, refunds, each recorded once by the key that made it', async () => {
    const actor = { type: 'api_key', id: shop.apiKeyId };
    const created = await service.http('POST', '/v1/api_keys', { key: shop.apiKey, body: { name: 'Reporting', scopes: ['balances:read', 'events:read'] } });
    secrets.push(created.body.api_key);
    await expectRecorded(created, 'api_key.created', actor, shop.id);
    const rolled = await service.http('POST', `/v1/api_keys/${created.body.id}/roll`, { key: shop.apiKey, body: { expires_in: 60 } });
    secrets.push(rolled.body.api_key);
    await expectRecorded(rolled, 'api_key.rolled', actor, shop.id);
    await expectRecorded(await service.http('POST', `/v1/api_keys/${rolled.body.id}/revoke`, { key: shop.apiKey }), 'api_key.revoked', actor, shop.id);

    // A webhook endpoint's life, by a restricted key: its actor is that key.
    const hooks = await service.http('POST', '/v1/api_keys', { key: shop.apiKey, body: { name: 'Hooks', scopes: ['webhook_endpoints:write'] } });
    secrets.push(hooks.body.api_key);
    const hooksActor = { type: 'api_key', id: hooks.body.id };
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: hooks.body.api_key, body: { url: receiver.url, enabled_events: ['*'] } });
    secrets.push(endpoint.body.secret);
    await expectRecorded(endpoint, 'webhook_endpoint.created', hooksActor, shop.id);
    await expectRecorded(await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}`, { key: hooks.body.api_key, body: { enabled_events: ['payment.succeeded'] } }), 'webhook_endpoint.updated', hooksActor, shop.id);
    const rotated = await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`, { key: hooks.body.api_key });
    secrets.push(rotated.body.secret);
    await expectRecorded(rotated, 'webhook_endpoint.secret_rotated', hooksActor, shop.id);
    await expectRecorded(await service.http('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`, { key: hooks.body.api_key }), 'webhook_endpoint.deleted', hooksActor, shop.id);

    // A refund, and its replay (not recorded twice).
    const customer = await createCustomer(service, 100_000);
    const payment = await createPayment(service, shop, { amount: 100_000 });
    expect((await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } })).status).toBe(200);
    const key = idempotencyKey();
    const refund = await service.http('POST', '/v1/refunds', { key: shop.apiKey, body: { payment: payment.id, amount: 10_000 }, headers: { 'Idempotency-Key': key } });
    await expectRecorded(refund, 'refund.created', actor, shop.id);
    const replay = await service.http('POST', '/v1/refunds', { key: shop.apiKey, body: { payment: payment.id, amount: 10_000 }, headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await eventsOf(refund.body.id)).toHaveLength(1);
  });

  it('payouts: bank account, payout, cancel, batch, bank statement import, each recorded once; a repeated import is not recorded again', async () => {
    const actor = { type: 'api_key', id: shop.apiKeyId };
    expect((await service.admin('POST', '/admin/v1/topups', { body: { account: shop.merchant, amount: 1_000_000, currency: 'DZD' } })).status).toBe(201);
    const account = await service.http('POST', '/v1/bank_accounts', {
      key: shop.apiKey,
      body: { connection: shop.merchant, account_holder: 'Audit SARL', iban: iban('DZ', '0002100001113000000570') },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    await expectRecorded(account, 'bank_account.created', actor, shop.id);
    const payout = (amount: number, key = idempotencyKey()) =>
      service.http('POST', '/v1/payouts', { key: shop.apiKey, body: { connection: shop.merchant, bank_account: account.body.id, amount, currency: 'DZD' }, headers: { 'Idempotency-Key': key } });
    const key = idempotencyKey();
    const canceled = await payout(10_000, key);
    await expectRecorded(canceled, 'payout.created', actor, shop.id);
    expect((await payout(10_000, key)).headers.get('idempotent-replayed')).toBe('true');
    await expectRecorded(await service.http('POST', `/v1/payouts/${canceled.body.id}/cancel`, { key: shop.apiKey }), 'payout.canceled', actor, shop.id);
    // A second cancel is refused (409): nothing more is recorded.
    expect((await service.http('POST', `/v1/payouts/${canceled.body.id}/cancel`, { key: shop.apiKey })).status).toBe(409);
    expect((await eventsOf(canceled.body.id)).map((e) => e.action)).toEqual(['payout.created', 'payout.canceled']);

    const paid = await payout(20_000);
    await expectRecorded(paid, 'payout.created', actor, shop.id);
    const batch = await service.admin('POST', '/admin/v1/payout_batches', { body: { currency: 'DZD' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    await expectRecorded(batch, 'payout_batch.created', ADMIN, null);
    const xml = statement(`AUD-${batch.body.id}`, [{ e2e: paid.body.id, amount: '200.00', currency: 'DZD', indicator: 'DBIT', ref: `A-${paid.body.id}` }]);
    const imported = await service.admin('POST', '/admin/v1/bank_statements', { rawBody: xml, headers: { 'Content-Type': 'application/xml' } });
    await expectRecorded(imported, 'bank_statement_import.created', ADMIN, null);
    // The same statement again answers the first import (duplicate): still one event.
    const again = await service.admin('POST', '/admin/v1/bank_statements', { rawBody: xml, headers: { 'Content-Type': 'application/xml' } });
    expect(again.body).toMatchObject({ id: imported.body.id, duplicate: true });
    expect(await eventsOf(imported.body.id)).toHaveLength(1);
    // An import sent with an Idempotency-Key replays its first answer on a retry: no second event either.
    const otherXml = statement(`AUD2-${batch.body.id}`, [{ e2e: 'po_unknown', amount: '1.00', currency: 'DZD', indicator: 'DBIT', ref: `B-${paid.body.id}` }]);
    const keyed = { rawBody: otherXml, headers: { 'Content-Type': 'application/xml', 'Idempotency-Key': idempotencyKey() } };
    const firstKeyed = await service.admin('POST', '/admin/v1/bank_statements', keyed);
    await expectRecorded(firstKeyed, 'bank_statement_import.created', ADMIN, null);
    const replayed = await service.admin('POST', '/admin/v1/bank_statements', keyed);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(firstKeyed.body);
    expect(await eventsOf(firstKeyed.body.id)).toHaveLength(1);
  });

  it('a change that may happen again (a webhook endpoint update) is recorded at each request', async () => {
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: receiver.url, enabled_events: ['*'] } });
    secrets.push(endpoint.body.secret);
    const update = (events: string[]) => service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}`, { key: shop.apiKey, body: { enabled_events: events } });
    const first = await update(['payment.succeeded']);
    const second = await update(['payment.succeeded']);
    const updates = (await eventsOf(endpoint.body.id)).filter((e) => e.action === 'webhook_endpoint.updated');
    expect(updates.map((e) => e.request_id)).toEqual([requestId(first), requestId(second)]);
  });

  it('redeliveries and replays through the APIs are recorded as the console records them, each request its own event', async () => {
    const actor = { type: 'api_key', id: shop.apiKeyId };
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: receiver.url, enabled_events: ['*'] } });
    secrets.push(endpoint.body.secret);
    const payment = await createPayment(service, shop);
    expect((await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey })).status).toBe(200);
    let eventId: string | undefined;
    for (const until = Date.now() + 30_000; eventId === undefined && Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
      eventId = (await service.http('GET', `/v1/events?object_id=${payment.id}`, { key: shop.apiKey })).body.data?.[0]?.id;
    }
    expect(eventId).toMatch(/^evt_/);
    const ofAction = async (action: string) => (await adminEvents(`action=${action}`)).reverse();
    const expected = (response: Response, action: string, who: object, integrator: string | null, target: object) => ({
      id: expect.stringMatching(/^aud_/),
      object: 'audit_event',
      action,
      actor: who,
      integrator,
      target,
      request_id: requestId(response),
      created_at: expect.any(String),
    });

    // An event redelivered twice: two events, one per request.
    const redeliver = () => service.http('POST', `/v1/events/${eventId}/redeliver`, { key: shop.apiKey });
    const [first, second] = [await redeliver(), await redeliver()];
    expect([first.status, second.status]).toEqual([200, 200]);
    const eventTarget = { object: 'event', id: eventId };
    expect(await ofAction('event.redelivered')).toEqual([first, second].map((r) => expected(r, 'event.redelivered', actor, shop.id, eventTarget)));
    // An endpoint's failed deliveries recovered: its failed deliveries sent again, as the console's redelivery.
    const recovered = await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/recover`, { key: shop.apiKey, body: { since: '2020-01-01T00:00:00Z' } });
    expect(recovered.status).toBe(200);
    const endpointTarget = { object: 'webhook_endpoint', id: endpoint.body.id };
    // The back office's redeliveries: every endpoint's (an operation), then one endpoint's.
    const all = await service.admin('POST', '/admin/v1/operations/failed_deliveries/redeliver', { body: {} });
    const one = await service.admin('POST', '/admin/v1/operations/failed_deliveries/redeliver', { body: { endpoint_id: endpoint.body.id } });
    expect([all.status, one.status]).toEqual([200, 200]);
    expect(await ofAction('failed_deliveries.redelivered')).toEqual([
      expected(recovered, 'failed_deliveries.redelivered', actor, shop.id, endpointTarget),
      expected(all, 'failed_deliveries.redelivered', ADMIN, null, { object: 'operation', id: expect.stringMatching(/^opr_[0-9A-Za-z]{20,}$/) }),
      expected(one, 'failed_deliveries.redelivered', ADMIN, null, endpointTarget),
    ]);
    // The parked events replayed: every app's, then one subscription's (each an operation).
    const replayAll = await service.admin('POST', '/admin/v1/operations/parked_events/replay', { body: {} });
    const replayViews = await service.admin('POST', '/admin/v1/operations/parked_events/replay', { body: { subscription_id: 'payments.payment-views' } });
    expect([replayAll.status, replayViews.status]).toEqual([200, 200]);
    const operation = { object: 'operation', id: expect.stringMatching(/^opr_[0-9A-Za-z]{20,}$/) };
    expect(await ofAction('parked_events.replayed')).toEqual([expected(replayAll, 'parked_events.replayed', ADMIN, null, operation), expected(replayViews, 'parked_events.replayed', ADMIN, null, operation)]);

    // Refused ones record nothing: an unknown or another integrator's event or endpoint, a bad body.
    const before = (await adminEvents('')).length;
    expect((await service.http('POST', '/v1/events/evt_000000000000000000000000/redeliver', { key: shop.apiKey })).status).toBe(404);
    for (const id of ['evt_a%00', 'a'.repeat(4000)]) expect([400, 404]).toContain((await service.http('POST', `/v1/events/${id}/redeliver`, { key: shop.apiKey })).status);
    expect((await service.http('POST', `/v1/events/${eventId}/redeliver`, { key: other.apiKey })).status).toBe(404);
    expect((await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/recover`, { key: other.apiKey, body: { since: '2020-01-01T00:00:00Z' } })).status).toBe(404);
    expect((await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/recover`, { key: shop.apiKey, body: { since: 'yesterday' } })).status).toBe(400);
    expect((await service.admin('POST', '/admin/v1/operations/failed_deliveries/redeliver', { body: { endpoint_id: 'we_000000000000000000000000' } })).status).toBe(404);
    expect((await service.admin('POST', '/admin/v1/operations/parked_events/replay', { body: { event_id: 'x' } })).status).toBe(400);
    expect((await service.admin('POST', '/admin/v1/operations/parked_events/replay', { body: { subscription_id: 'payments.payment-views', event_id: 'not-parked' } })).status).toBe(404);
    expect((await adminEvents('')).length).toBe(before);
  });

  it('reads and failed requests are not recorded', async () => {
    const before = (await adminEvents('')).length;
    await service.http('GET', '/v1/api_keys', { key: shop.apiKey });
    await service.http('GET', '/v1/payments', { key: shop.apiKey });
    await service.http('GET', '/v1/audit_events', { key: shop.apiKey });
    await service.http('POST', '/v1/api_keys', { key: shop.apiKey, body: { name: 'bad', scopes: ['nope:read'] } });
    await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: 'ftp://x' } });
    await service.admin('POST', '/admin/v1/connections', { body: { integrator: 'int_unknown000000000000000', kind: 'merchant', name: 'x', currency: 'DZD' } });
    await service.admin('POST', '/admin/v1/api_keys/key_unknown000000000000000/revoke');
    expect((await adminEvents('')).length).toBe(before);
  });

  it('lists: an integrator sees its own events only (a ["*"] key), newest first, with filters and pages; the back office sees all', async () => {
    const mine = await service.http('GET', '/v1/audit_events?limit=100', { key: shop.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body.object).toBe('list');
    const data = mine.body.data as any[];
    expect(data.length).toBeGreaterThan(3);
    expect(data.every((e) => e.integrator === shop.id)).toBe(true);
    const times = data.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await service.http('GET', '/v1/audit_events?limit=100', { key: other.apiKey })).body.data.every((e: any) => e.integrator === other.id)).toBe(true);
    // Filters.
    const created = await service.http('GET', '/v1/audit_events?action=api_key.created&limit=100', { key: shop.apiKey });
    expect(created.body.data.length).toBeGreaterThan(0);
    expect(created.body.data.every((e: any) => e.action === 'api_key.created')).toBe(true);
    const middle = data[Math.floor(data.length / 2)];
    const since = await service.http('GET', `/v1/audit_events?created_gte=${encodeURIComponent(middle.created_at)}&limit=100`, { key: shop.apiKey });
    expect(since.body.data.every((e: any) => e.created_at >= middle.created_at)).toBe(true);
    const until = await service.http('GET', `/v1/audit_events?created_lt=${encodeURIComponent(middle.created_at)}&limit=100`, { key: shop.apiKey });
    expect(until.body.data.every((e: any) => e.created_at < middle.created_at)).toBe(true);
    expect(since.body.data.length + until.body.data.length).toBe(data.length);
    // Pages.
    const first = await service.http('GET', '/v1/audit_events?limit=2', { key: shop.apiKey });
    expect(first.body).toMatchObject({ has_more: true });
    const next = await service.http('GET', `/v1/audit_events?limit=2&starting_after=${first.body.data[1].id}`, { key: shop.apiKey });
    expect(next.body.data.map((e: any) => e.id)).toEqual(data.slice(2, 4).map((e) => e.id));
    const foreign = (await service.http('GET', '/v1/audit_events?limit=1', { key: other.apiKey })).body.data[0].id;
    expect((await service.http('GET', `/v1/audit_events?starting_after=${foreign}`, { key: shop.apiKey })).status).toBe(400);
    const notCreated = data.find((e) => e.action !== 'api_key.created')!;
    expect((await service.http('GET', `/v1/audit_events?action=api_key.created&starting_after=${notCreated.id}`, { key: shop.apiKey })).status).toBe(400);
    expect((await service.http('GET', `/v1/audit_events?created_gte=${encodeURIComponent(middle.created_at)}&starting_after=${data[data.length - 1]!.id}`, { key: shop.apiKey })).status).toBe(400);
    expect((await service.http('GET', '/v1/audit_events?integrator=x', { key: shop.apiKey })).status).toBe(400);
    expect((await service.http('GET', '/v1/audit_events?created_gte=yesterday', { key: shop.apiKey })).status).toBe(400);
    // The back office: every integrator's, filtered by integrator; a finance key too; an integrator key is 401.
    const all = await adminEvents('');
    expect(all.some((e) => e.integrator === shop.id) && all.some((e) => e.integrator === other.id)).toBe(true);
    expect((await adminEvents(`integrator=${shop.id}`)).every((e) => e.integrator === shop.id)).toBe(true);
    const topups = await adminEvents('action=topup.created');
    expect(topups.length).toBeGreaterThan(0);
    expect(topups.every((e) => e.action === 'topup.created')).toBe(true);
    const pivot = all[Math.floor(all.length / 2)];
    const later = await adminEvents(`created_gte=${encodeURIComponent(pivot.created_at)}`);
    const earlier = await adminEvents(`created_lt=${encodeURIComponent(pivot.created_at)}`);
    expect(later.every((e) => e.created_at >= pivot.created_at) && earlier.every((e) => e.created_at < pivot.created_at)).toBe(true);
    expect(later.some((e) => e.id === pivot.id) && !earlier.some((e) => e.id === pivot.id)).toBe(true);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Auditors' } });
    secrets.push(finance.body.api_key);
    expect((await service.http('GET', '/admin/v1/audit_events', { key: finance.body.api_key })).status).toBe(200);
    expect((await service.http('GET', '/admin/v1/audit_events', { key: shop.apiKey })).status).toBe(401);
  });

  it('the database refuses an UPDATE, DELETE or TRUNCATE of an audit event on the service\'s own connection', async () => {
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; action: string }>('SELECT id, action FROM gw_audit_events ORDER BY seq LIMIT 1');
      const row = rows[0]!;
      await expect(db.query(`UPDATE gw_audit_events SET action = 'forged.action' WHERE id = $1`, [row.id])).rejects.toThrow(/append-only|permission denied/);
      await expect(db.query('DELETE FROM gw_audit_events WHERE id = $1', [row.id])).rejects.toThrow(/append-only|permission denied/);
      await expect(db.query('TRUNCATE gw_audit_events')).rejects.toThrow(/append-only|permission denied/);
      const after = await db.query<{ action: string }>('SELECT action FROM gw_audit_events WHERE id = $1', [row.id]);
      expect(after.rows[0]?.action).toBe(row.action);
    } finally {
      await db.end();
    }
  });

  it('no secret in any audit row, nor in any log line', async () => {
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    let rows: string;
    try {
      rows = (await db.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM gw_audit_events a')).rows.map((r) => r.row).join('\n');
      // Every request settled its intent (recorded, or dropped when refused): none is left for the sweeper.
      expect((await db.query('SELECT row_to_json(i)::text AS row FROM gw_audit_intents i')).rows).toEqual([]);
    } finally {
      await db.end();
    }
    expect(rows.length).toBeGreaterThan(100);
    const logs = service.logs();
    expect(logs.length).toBeGreaterThan(100);
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect({ secret: secret.slice(0, 3), inRows: rows.includes(secret), inLogs: logs.includes(secret) }).toEqual({ secret: secret.slice(0, 3), inRows: false, inLogs: false });
    }
  });
});
