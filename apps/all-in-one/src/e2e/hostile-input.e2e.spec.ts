import { createIntegrator, idempotencyKey, paymentBody, startTestService, type Integrator, type Response, type TestService } from './harness';

/** Every request the service cannot use is a 4xx in the contract's error shape, with a Request-Id; never a 5xx. */
describe('hostile input is refused at the edge', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  const expectRefused = (response: Response, status: number, code: string) => {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
    expect(typeof response.body.error.message).toBe('string');
    expect(response.headers.get('request-id')).toMatch(/^req_/);
  };

  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  describe('JSON nested deeper than 64 levels is 400 invalid_request on every JSON route', () => {
    it.each([
      ['POST', '/v1/payments'],
      ['POST', '/v1/cash_payments'],
      ['POST', '/v1/supplier_payments'],
      ['POST', '/v1/collections'],
      ['POST', '/v1/webhook_endpoints'],
      ['POST', '/admin/v1/integrators'],
    ])('%s %s', async (method, path) => {
      const deep = `{"amount":${nested(5000)}}`;
      const key = path.startsWith('/admin') ? service.adminKey : shop.apiKey;
      expectRefused(await service.http(method, path, { key, rawBody: deep, headers: { 'Idempotency-Key': idempotencyKey() } }), 400, 'invalid_request');
    });

    it('64 levels are still parsed (and then validated as usual)', async () => {
      const response = await service.http('POST', '/v1/payments', {
        key: shop.apiKey,
        rawBody: JSON.stringify({ ...paymentBody(shop.merchant), amount: JSON.parse(nested(63)) }),
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
      expectRefused(response, 400, 'invalid_amount');
    });
  });

  describe('NUL characters and unpaired surrogates never reach storage', () => {
    it.each([
      ['a NUL in a string', '"a\\u0000b"'],
      ['a lone high surrogate', '"\\ud800"'],
      ['a lone low surrogate', '"x\\udc00"'],
    ])('%s in a body field is 400 invalid_request', async (_case, value) => {
      const body = JSON.stringify(paymentBody(shop.merchant)).replace(/"order_reference":"[^"]*"/, `"order_reference":${value}`);
      expectRefused(await service.http('POST', '/v1/payments', { key: shop.apiKey, rawBody: body, headers: { 'Idempotency-Key': idempotencyKey() } }), 400, 'invalid_request');
    });

    it('a well-formed pair of surrogates (an emoji) is accepted', async () => {
      const response = await service.http('POST', '/v1/payments', {
        key: shop.apiKey,
        body: paymentBody(shop.merchant, { order_reference: 'order \ud83d\ude00' }),
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
      expect(response.status).toBe(201);
      expect(response.body.order_reference).toBe('order \ud83d\ude00');
    });

    it.each(['/v1/payments/pay_x%00y', '/v1/cash_payments/cpay_x%00y', '/v1/collections/col_%00', '/v1/events/evt_a%00'])('a NUL in the path %s is a 4xx', async (path) => {
      const response = await service.http('GET', path, { key: shop.apiKey });
      expect([400, 404]).toContain(response.status);
      expect(['invalid_request', 'resource_not_found']).toContain(response.body.error.code);
    });

    it('a NUL in a query filter is 400 invalid_request', async () => {
      expectRefused(await service.http('GET', '/v1/supplier_payments?invoice_reference=a%00b', { key: shop.apiKey }), 400, 'invalid_request');
    });

    it('a NUL in a hosted page path is a 4xx', async () => {
      const response = await service.http('GET', '/hosted/payments/pay_a%00b');
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    });
  });

  it('a path that is not valid percent-encoding is 400 invalid_request in the contract shape, with a Request-Id', async () => {
    const response = await service.http('GET', '/v1/payments/%ZZ', { key: shop.apiKey });
    expectRefused(response, 400, 'invalid_request');
    expect(JSON.stringify(response.body)).not.toContain('FST_');
  });

  describe('ids that cannot exist are 404 resource_not_found', () => {
    it.each([
      ['a wrong prefix', '/v1/payments/cpay_abc'],
      ['bad characters', '/v1/payments/pay_abc$def'],
      ['over 255 characters', `/v1/payments/pay_${'a'.repeat(300)}`],
      ['a wrong prefix on an action', '/v1/cash_payments/pay_abc/cancel'],
    ])('%s', async (_case, path) => {
      const method = path.endsWith('/cancel') ? 'POST' : 'GET';
      expectRefused(await service.http(method, path, { key: shop.apiKey }), 404, 'resource_not_found');
    });
  });

  it('a malformed cookie on a hosted page is ignored, not a 500', async () => {
    const payment = await service.http('POST', '/v1/payments', { key: shop.apiKey, body: paymentBody(shop.merchant), headers: { 'Idempotency-Key': idempotencyKey() } });
    const page = new URL(payment.body.authorization_url).pathname;
    const response = await service.http('GET', page, { headers: { Cookie: 'pay_csrf=%ZZ; pay_session=%E0%A4%A' } });
    expect(response.status).toBe(200);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('an unknown parameter named %s is 400 invalid_request on every create', async (name) => {
    for (const path of ['/v1/cash_payments', '/v1/collections', '/v1/payments', '/v1/supplier_payments']) {
      const response = await service.http('POST', path, { key: shop.apiKey, rawBody: JSON.stringify({ ...paymentBody(shop.merchant), [name]: 'x' }), headers: { 'Idempotency-Key': idempotencyKey() } });
      expectRefused(response, 400, 'invalid_request');
    }
  });

  it('a JSON body sent without Content-Type: application/json (curl -d sends a form type) is told what is wrong', async () => {
    const response = await fetch(`${service.url}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${shop.apiKey}`, 'Idempotency-Key': idempotencyKey(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify(paymentBody(shop.merchant)),
    });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(400);
    expect(body.error.message).toMatch(/Content-Type/);
  });
});

describe('outside sandbox', () => {
  let service: TestService;
  beforeAll(async () => (service = await startTestService({ SANDBOX: 'false' })));
  afterAll(() => service.stop());

  it('the test helpers are 404, with a message saying they need SANDBOX=true', async () => {
    const shop = await createIntegrator(service);
    const response = await service.http('POST', '/v1/test_helpers/payments/pay_abc/decline', { key: shop.apiKey });
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'resource_not_found' });
    expect(response.body.error.message).toMatch(/SANDBOX=true/);
  });
});
