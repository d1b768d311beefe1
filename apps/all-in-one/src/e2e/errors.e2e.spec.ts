import { createIntegrator, idempotencyKey, paymentBody, startTestService, type Integrator, type TestService } from './harness';

describe('contract section 2: authentication, error shape, statuses and conditions', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  const create = (body: unknown, headers: Record<string, string> = {}) =>
    service.http('POST', '/v1/payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': idempotencyKey(), ...headers } });

  const expectError = (response: { status: number; body: any }, status: number, code: string, param?: string) => {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
    expect(typeof response.body.error.message).toBe('string');
    expect(response.body.error.message).not.toMatch(/\n\s+at /); // never a stack trace
    if (param !== undefined) expect(response.body.error.param).toBe(param);
  };

  describe('401 authentication_required', () => {
    it.each([
      ['missing header', {}],
      ['not a bearer', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['malformed', { Authorization: 'Bearer' }],
      ['unknown key', { Authorization: 'Bearer sk_unknown00000000000000000000000' }],
    ])('%s', async (_case, headers) => {
      expectError(await service.http('GET', '/v1/payments/pay_x', { headers }), 401, 'authentication_required');
    });

    it('a revoked key', async () => {
      const other = await createIntegrator(service);
      expect((await service.http('GET', '/v1/payments/pay_x', { key: other.apiKey })).status).toBe(404);
      const revoked = await service.admin('POST', `/admin/v1/api_keys/${other.apiKeyId}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: other.apiKeyId, object: 'api_key', status: 'revoked' });
      expectError(await service.http('GET', '/v1/payments/pay_x', { key: other.apiKey }), 401, 'authentication_required');
    });

    it('an integrator key on the admin API, and the admin key on the integrator API', async () => {
      expectError(await service.http('GET', '/admin/v1/ledger/trial_balance', { key: shop.apiKey }), 401, 'authentication_required');
      expectError(await service.http('GET', '/v1/payments/pay_x', { key: service.adminKey }), 401, 'authentication_required');
    });

    it('authentication comes before body validation', async () => {
      expectError(await service.http('POST', '/v1/payments', { body: { amount: 'x' } }), 401, 'authentication_required');
    });
  });

  describe('400 on create payment, with the faulty param', () => {
    const base = () => paymentBody(shop.merchant);
    it.each<[string, (body: Record<string, unknown>) => unknown, string, string | undefined]>([
      ['a JSON array body', () => [1, 2], 'invalid_request', undefined],
      ['a JSON string body', () => 'hello', 'invalid_request', undefined],
      ['missing amount', ({ amount: _a, ...rest }) => rest, 'invalid_request', 'amount'],
      ['null amount counts as missing', (b) => ({ ...b, amount: null }), 'invalid_request', 'amount'],
      ['missing order_reference', ({ order_reference: _o, ...rest }) => rest, 'invalid_request', 'order_reference'],
      ['null currency', (b) => ({ ...b, currency: null }), 'invalid_request', 'currency'],
      ['an unknown parameter', (b) => ({ ...b, metadata: { a: 1 } }), 'invalid_request', 'metadata'],
      ['an empty string', (b) => ({ ...b, order_reference: '' }), 'invalid_request', 'order_reference'],
      ['a string over 255 characters', (b) => ({ ...b, order_reference: 'x'.repeat(256) }), 'invalid_request', 'order_reference'],
      ['a number where a string is expected', (b) => ({ ...b, merchant_connection: 42 }), 'invalid_request', 'merchant_connection'],
      ['currency of the wrong type', (b) => ({ ...b, currency: 12 }), 'invalid_request', 'currency'],
      ['return_url over http', (b) => ({ ...b, return_url: 'http://shop.example/r' }), 'invalid_request', 'return_url'],
      ['return_url relative', (b) => ({ ...b, return_url: '/return' }), 'invalid_request', 'return_url'],
      // What new URL() repairs into an https URL is not one as given.
      ['return_url https: without slashes', (b) => ({ ...b, return_url: 'https:shop.example' }), 'invalid_request', 'return_url'],
      ['return_url https:/ with one slash', (b) => ({ ...b, return_url: 'https:/shop.example' }), 'invalid_request', 'return_url'],
      ['return_url https:/// with no host', (b) => ({ ...b, return_url: 'https:///shop.example' }), 'invalid_request', 'return_url'],
      ['return_url https:\\ with backslashes', (b) => ({ ...b, return_url: 'https:\\\\shop.example' }), 'invalid_request', 'return_url'],
      ['return_url with a newline', (b) => ({ ...b, return_url: 'https://shop.example/r\nSet-Cookie: x=1' }), 'invalid_request', 'return_url'],
      ['return_url with a tab', (b) => ({ ...b, return_url: 'https://shop.example/\tr' }), 'invalid_request', 'return_url'],
      ['return_url with a space', (b) => ({ ...b, return_url: 'https://shop.example/a b' }), 'invalid_request', 'return_url'],
      ['return_url with leading whitespace', (b) => ({ ...b, return_url: ' https://shop.example/r' }), 'invalid_request', 'return_url'],
      ['return_url with a control character', (b) => ({ ...b, return_url: 'https://shop.example/\u0001r' }), 'invalid_request', 'return_url'],
      ['return_url with a no-break space', (b) => ({ ...b, return_url: 'https://shop.example/\u00a0r' }), 'invalid_request', 'return_url'],
      ['amount zero', (b) => ({ ...b, amount: 0 }), 'invalid_amount', 'amount'],
      ['amount negative', (b) => ({ ...b, amount: -100 }), 'invalid_amount', 'amount'],
      ['amount fractional', (b) => ({ ...b, amount: 10.5 }), 'invalid_amount', 'amount'],
      ['amount as a string', (b) => ({ ...b, amount: '1000' }), 'invalid_amount', 'amount'],
      ['amount above 100000000000', (b) => ({ ...b, amount: 100_000_000_001 }), 'invalid_amount', 'amount'],
      ['currency not supported', (b) => ({ ...b, currency: 'EUR' }), 'unsupported_currency', 'currency'],
      ['currency in lower case', (b) => ({ ...b, currency: 'dzd' }), 'unsupported_currency', 'currency'],
      ['invalid_request ranks before invalid_amount', (b) => ({ ...b, amount: 0, order_reference: '' }), 'invalid_request', 'order_reference'],
      ['invalid_amount ranks before unsupported_currency', (b) => ({ ...b, amount: 0, currency: 'EUR' }), 'invalid_amount', 'amount'],
    ])('%s', async (_case, change, code, param) => {
      expectError(await create(change(base())), 400, code, param);
    });

    it('amount 100000000000 and 1 are accepted', async () => {
      expect((await create({ ...base(), amount: 100_000_000_000 })).status).toBe(201);
      expect((await create({ ...base(), amount: 1 })).status).toBe(201);
    });

    it('an absolute https:// URL is accepted as return_url, the scheme in any case, with a port, a query or a fragment', async () => {
      for (const returnUrl of ['HTTPS://Shop.example/r', 'https://shop.example:8443/r?x=a%20b&z#frag', 'https://xn--bcher-kva.example/retour', 'https://shop.example']) {
        const created = await create({ ...base(), return_url: returnUrl });
        expect({ returnUrl, status: created.status }).toEqual({ returnUrl, status: 201 });
        expect(created.body.return_url).toBe(returnUrl);
      }
    });

    it('Idempotency-Key missing or longer than 255 characters', async () => {
      expectError(await service.http('POST', '/v1/payments', { key: shop.apiKey, body: base() }), 400, 'invalid_request', 'Idempotency-Key');
      expectError(await create(base(), { 'Idempotency-Key': 'k'.repeat(256) }), 400, 'invalid_request', 'Idempotency-Key');
    });

    it('a body that is not application/json, or not JSON at all', async () => {
      const text = await service.http('POST', '/v1/payments', {
        key: shop.apiKey,
        rawBody: 'amount=1',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': idempotencyKey() },
      });
      expectError(text, 400, 'invalid_request');
      expectError(await service.http('POST', '/v1/payments', { key: shop.apiKey, rawBody: '{"amount":', headers: { 'Idempotency-Key': idempotencyKey() } }), 400, 'invalid_request');
    });

    it('a body over 1 MB (1,048,576 bytes) is 413 invalid_request', async () => {
      const oversized = JSON.stringify({ ...base(), order_reference: 'x'.repeat(1_048_576) });
      expectError(await service.http('POST', '/v1/payments', { key: shop.apiKey, rawBody: oversized, headers: { 'Idempotency-Key': idempotencyKey() } }), 413, 'invalid_request');
    });
  });

  describe('authorization, after the body shape', () => {
    it("a connection that does not exist or is another integrator's: 403 connection_not_authorized", async () => {
      const other = await createIntegrator(service);
      expectError(await create(paymentBody('conn_doesnotexist000000000000')), 403, 'connection_not_authorized', 'merchant_connection');
      expectError(await create(paymentBody(other.merchant)), 403, 'connection_not_authorized', 'merchant_connection');
    });

    it('a currency other than the connection account currency: 400 currency_mismatch', async () => {
      expectError(await create(paymentBody(shop.merchant, { currency: 'MAD' })), 400, 'currency_mismatch');
    });

    it('body shape ranks before authorization, authorization before currency_mismatch', async () => {
      expectError(await create(paymentBody('conn_doesnotexist000000000000', { amount: 0 })), 400, 'invalid_amount');
      const other = await createIntegrator(service, 'MAD');
      expectError(await create(paymentBody(other.merchant, { currency: 'XOF' })), 403, 'connection_not_authorized');
    });
  });

  describe('every response', () => {
    it('carries a Request-Id header, errors included', async () => {
      const responses = [
        await service.http('GET', '/health'),
        await service.http('GET', '/v1/payments/pay_x', { key: shop.apiKey }),
        await service.http('GET', '/nowhere'),
        await create(paymentBody(shop.merchant)),
      ];
      const ids = responses.map((r) => r.headers.get('request-id'));
      for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20,}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('an unknown route is 404 resource_not_found', async () => {
      expectError(await service.http('GET', '/v1/nothing-here', { key: shop.apiKey }), 404, 'resource_not_found');
      expectError(await service.http('DELETE', '/v1/payments/pay_x', { key: shop.apiKey }), 404, 'resource_not_found');
    });

    it('GET /health answers 200 {"status":"ok"} without a key', async () => {
      const health = await service.http('GET', '/health');
      expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    });
  });
});

describe('per-key rate limit', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ RATE_LIMIT_PER_SECOND: '5' });
  });
  afterAll(() => service.stop());

  it('past the burst (twice the rate) a key gets 429 rate_limited with Retry-After; another key is unaffected', async () => {
    const [first, second] = [await createIntegrator(service), await createIntegrator(service)];
    // 40 at once: past the burst of 10 even if a loaded machine spreads them over seconds of refill.
    const responses = await Promise.all(Array.from({ length: 40 }, () => service.http('GET', '/v1/payments/pay_x', { key: first.apiKey })));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    expect(limited[0]!.body.error.code).toBe('rate_limited');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await service.http('GET', '/v1/payments/pay_x', { key: second.apiKey })).status).toBe(404);
  });
});
