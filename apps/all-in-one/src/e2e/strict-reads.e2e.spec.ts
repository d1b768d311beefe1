import { createCustomer, createIntegrator, createPayment, idempotencyKey, paymentBody, startTestService, type Integrator, type TestService } from './harness';
import { audienceOf, gatewayRoutes, openApiPath, samplePath } from './route-table';

const concrete = (path: string) => samplePath(path, 'conn_x1');

/** Reads answer what was asked or refuse it: nothing a caller sends is silently ignored. */
describe('strict reads', () => {
  let service: TestService;
  let shop: Integrator;
  let customer: string;
  let payment: { id: string; amount: number };

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    customer = await createCustomer(service, 1_000_000);
    const created = await createPayment(service, shop, { amount: 100_000 });
    payment = (await service.http('POST', `/v1/test_helpers/payments/${created.id}/authorize`, { key: shop.apiKey, body: { customer } })).body;
    expect(payment).toMatchObject({ status: 'succeeded' });
  }, 120_000);
  afterAll(() => service?.stop());

  it('every GET of /v1 and /admin/v1 that takes no query parameter refuses one: 400 invalid_request naming it', async () => {
    const document = (await service.http('GET', '/openapi.json')).body;
    const routes = gatewayRoutes().filter((r) => r.method === 'GET' && (audienceOf(r) === 'integrator' || audienceOf(r) === 'admin'));
    const bare = routes.filter((r) => !(document.paths[openApiPath(r.path)]?.get?.parameters ?? []).some((p: { in: string }) => p.in === 'query'));
    expect(bare.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/balances/:connection', '/v1/payments/:id', '/v1/refunds/:id', '/v1/balance_transactions/:id']));
    for (const route of bare) {
      const key = audienceOf(route) === 'integrator' ? shop.apiKey : service.adminKey;
      const response = await service.http('GET', `${concrete(route.path)}?as_of=2026-12-06T18:25:00Z`, { key });
      expect({ route: route.path, status: response.status, error: response.body.error }).toMatchObject({ route: route.path, status: 400, error: { code: 'invalid_request', param: 'as_of' } });
    }
  });
  it('every POST and DELETE of /v1 and /admin/v1 refuses a query parameter (none declares one): 400 invalid_request naming it', async () => {
    const routes = gatewayRoutes().filter((r) => r.method !== 'GET' && (audienceOf(r) === 'integrator' || audienceOf(r) === 'admin'));
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /v1/refunds', 'POST /v1/payments', 'DELETE /v1/webhook_endpoints/:id', 'POST /admin/v1/topups']));
    const answers = [];
    for (const route of routes) {
      const key = audienceOf(route) === 'integrator' ? shop.apiKey : service.adminKey;
      const response = await service.http(route.method, `${concrete(route.path)}?force=true`, { key });
      answers.push({ route: `${route.method} ${route.path}`, status: response.status, error: response.body.error });
    }
    expect(answers).toEqual(routes.map((r) => ({ route: `${r.method} ${r.path}`, status: 400, error: expect.objectContaining({ code: 'invalid_request', param: 'force' }) })));
  });

  it('a create with a query parameter is refused whole: no refund, no payment', async () => {
    const refund = await service.http('POST', '/v1/refunds?amount=1', { key: shop.apiKey, body: { payment: payment.id, amount: 100 }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect({ status: refund.status, error: refund.body.error }).toEqual({ status: 400, error: { code: 'invalid_request', message: 'unknown parameter: amount (this route takes no query parameter)', param: 'amount' } });
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.amount_refunded).toBe(0);
    const before = (await service.http('GET', '/v1/payments?limit=100', { key: shop.apiKey })).body.data.length;
    const created = await service.http('POST', '/v1/payments?foo=bar', {
      key: shop.apiKey,
      body: paymentBody(shop.merchant),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect({ status: created.status, param: created.body.error?.param }).toEqual({ status: 400, param: 'foo' });
    expect((await service.http('GET', '/v1/payments?limit=100', { key: shop.apiKey })).body.data).toHaveLength(before);
  });

  it('deleting a webhook endpoint takes no body parameter: 400 invalid_request naming it; no body or {} deletes', async () => {
    const register = async () => (await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: 'https://1.1.1.1/hooks' } })).body.id as string;
    const [first, second] = [await register(), await register()];
    const refused = await service.http('DELETE', `/v1/webhook_endpoints/${first}`, { key: shop.apiKey, body: { x: 1 } });
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: { code: 'invalid_request', message: 'unknown parameter: x', param: 'x' } });
    expect((await service.http('GET', `/v1/webhook_endpoints/${first}`, { key: shop.apiKey })).status).toBe(200);
    expect((await service.http('DELETE', `/v1/webhook_endpoints/${first}`, { key: shop.apiKey, body: {} })).body).toEqual({ id: first, object: 'webhook_endpoint', deleted: true });
    expect((await service.http('DELETE', `/v1/webhook_endpoints/${second}`, { key: shop.apiKey })).body).toEqual({ id: second, object: 'webhook_endpoint', deleted: true });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=5', 'limit'],
    ['starting_after=nope', 'starting_after'],
    ['from=2026-01-01T00:00:00Z', 'from'],
    ['to=2026-01-01T00:00:00Z', 'to'],
  ])('ledger entries by reference take no %s: 400 invalid_request', async (query, param) => {
    const response = await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}&${query}`);
    expect({ status: response.status, error: response.body.error }).toMatchObject({ status: 400, error: { code: 'invalid_request', param } });
  });

  it('ledger lists refuse a starting_after outside the list, an unknown account and a period that ends before it starts', async () => {
    const ofCustomer = (await service.admin('GET', `/admin/v1/ledger/entries?account=${customer}`)).body.data;
    const topup = ofCustomer.find((e: { postings: { account: string }[] }) => e.postings.every((p) => p.account !== shop.merchant));
    expect(topup).toBeDefined();
    const foreignCursor = await service.admin('GET', `/admin/v1/ledger/entries?account=${shop.merchant}&starting_after=${topup.id}`);
    expect({ status: foreignCursor.status, error: foreignCursor.body.error }).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'starting_after' } });
    const ownCursor = await service.admin('GET', `/admin/v1/ledger/entries?account=${customer}&starting_after=${topup.id}`);
    expect(ownCursor.status).toBe(200);
    const otherKind = await service.admin('GET', `/admin/v1/ledger/accounts?kind=platform_paid_out&starting_after=${shop.merchant}`);
    expect({ status: otherKind.status, error: otherKind.body.error }).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'starting_after' } });
    expect((await service.admin('GET', `/admin/v1/ledger/accounts?kind=connection&starting_after=${shop.merchant}`)).status).toBe(200);
    const unknown = await service.admin('GET', '/admin/v1/ledger/entries?account=nope');
    expect({ status: unknown.status, code: unknown.body.error?.code }).toEqual({ status: 404, code: 'resource_not_found' });
    const backwards = await service.admin('GET', `/admin/v1/ledger/entries?account=${shop.merchant}&from=2026-12-31T00:00:00Z&to=2026-12-01T00:00:00Z`);
    expect({ status: backwards.status, error: backwards.body.error }).toMatchObject({ status: 400, error: { code: 'invalid_request', message: 'from must be before to', param: 'from' } });
  });

  it('a request body that repeats a key is 400 invalid_request naming it, whatever the value it would have taken', async () => {
    const response = await service.http('POST', '/v1/refunds', {
      key: shop.apiKey,
      rawBody: `{"payment":"${payment.id}","amount":1,"\\u0070ayment":"pay_other1"}`,
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect({ status: response.status, error: response.body.error }).toMatchObject({ status: 400, error: { code: 'invalid_request', message: expect.stringContaining('payment') } });
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.amount_refunded).toBe(0);
  });

  it('revoking a finance key answers the finance key: role finance, no scopes', async () => {
    const created = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Books' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(201);
    const revoked = await service.admin('POST', `/admin/v1/api_keys/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, object: 'api_key', role: 'finance', name: 'Books', status: 'revoked' });
    expect(revoked.body).not.toHaveProperty('scopes');
  });

  it('CSV is answered only when the Accept header prefers it over JSON (q-values honoured)', async () => {
    const path = `/admin/v1/ledger/entries?reference=${payment.id}`;
    const typeFor = async (accept: string) => (await service.admin('GET', path, { headers: { Accept: accept } })).headers.get('content-type');
    expect(await typeFor('text/csv;q=0.5, application/json')).toMatch(/^application\/json/);
    expect(await typeFor('application/json;q=0.5, text/csv')).toMatch(/^text\/csv/);
    expect(await typeFor('text/csv')).toMatch(/^text\/csv/);
    expect(await typeFor('text/csv;q=0')).toMatch(/^application\/json/);
    expect(await typeFor('*/*')).toMatch(/^application\/json/);
  });

  it('a refund without amount of a fully refunded payment says there is nothing left, without naming amount', async () => {
    const other = await createCustomer(service, 50_000);
    const created = await createPayment(service, shop, { amount: 50_000 });
    await service.http('POST', `/v1/test_helpers/payments/${created.id}/authorize`, { key: shop.apiKey, body: { customer: other } });
    const refund = (body: unknown) => service.http('POST', '/v1/refunds', { key: shop.apiKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect((await refund({ payment: created.id })).body).toMatchObject({ status: 'succeeded', amount: 50_000 });
    const again = await refund({ payment: created.id });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_amount');
    expect(again.body.error).not.toHaveProperty('param');
    expect(again.body.error.message).toMatch(/nothing left to refund/);
    expect(again.body.error.message).not.toMatch(/from 1 to 0/);
    const withAmount = await refund({ payment: created.id, amount: 1 });
    expect(withAmount.body.error).toMatchObject({ code: 'invalid_amount', param: 'amount' });
  });
});
