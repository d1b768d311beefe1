import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { Webhook } from 'standardwebhooks';
import { createCustomer, createIntegrator, createPayment, idempotencyKey, paymentBody, startTestService, type Integrator, type Response, type TestService } from './harness';
import { Receiver } from './receiver';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request as sent byte for byte: a header given as an array is sent once per value. */
const rawRequest = (url: string, method: string, path: string, headers: Record<string, string | string[]>, body?: Buffer | string): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.end(body);
  });

/**
 * The edges of the contract: the webhook endpoints' limit and redelivery throttle, authentication before
 * anything else, impossible dates, bad query encoding, headers of responses that carry a secret, bodies
 * in encodings the API does not read, repeated headers, concurrent secret rotations.
 */
describe('edges of the contract', () => {
  let service: TestService;
  let shop: Integrator;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
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
  const expectRefused = (response: Pick<Response, 'status' | 'body'>, status: number, code: string) => {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
    expect(typeof response.body.error.message).toBe('string');
  };
  const createEndpoint = (integrator: Integrator, url: string) =>
    service.http('POST', '/v1/webhook_endpoints', { key: integrator.apiKey, body: { url, enabled_events: ['*'] } });
  const pay = async (integrator: Integrator) => {
    const payment = await createPayment(service, integrator);
    const customer = await createCustomer(service, 5_000_000);
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: integrator.apiKey, body: { customer } });
    expect(authorized.body.status).toBe('succeeded');
    return authorized.body;
  };
  const firstEventOf = async (integrator: Integrator): Promise<string> => {
    for (let waited = 0; waited < 20_000; waited += 100) {
      const { body } = await service.http('GET', '/v1/events', { key: integrator.apiKey });
      if (body.data[0]) return body.data[0].id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no event listed');
  };

  describe('webhook endpoints are limited per integrator, and redelivery is throttled', () => {
    it('at most 16 endpoints, also under parallel creates; deleted ones do not count; one more is 400 invalid_request', async () => {
      const integrator = await createIntegrator(service);
      const hook = await receiver();
      const created = await Promise.all(Array.from({ length: 24 }, (_, i) => createEndpoint(integrator, `${hook.url}/${i}`)));
      expect(created.filter((r) => r.status === 201)).toHaveLength(16);
      for (const refused of created.filter((r) => r.status !== 201)) expectRefused(refused, 400, 'invalid_request');
      const listed = await service.http('GET', '/v1/webhook_endpoints?limit=100', { key: integrator.apiKey });
      expect(listed.body.data).toHaveLength(16);

      const deleted = await service.http('DELETE', `/v1/webhook_endpoints/${listed.body.data[0].id}`, { key: integrator.apiKey });
      expect(deleted.status).toBe(200);
      expect((await createEndpoint(integrator, `${hook.url}/again`)).status).toBe(201);
      expectRefused(await createEndpoint(integrator, `${hook.url}/over`), 400, 'invalid_request');
    });

    it('a redelivery adds no delivery to an endpoint that still has one of the event pending', async () => {
      const integrator = await createIntegrator(service);
      const hook = await receiver();
      hook.reply(...Array.from({ length: 20 }, () => ({ status: 500 })));
      expect((await createEndpoint(integrator, hook.url)).status).toBe(201);
      await pay(integrator);
      const eventId = await firstEventOf(integrator);
      for (let i = 0; i < 10; i++) expect((await service.http('POST', `/v1/events/${eventId}/redeliver`, { key: integrator.apiKey })).status).toBe(200);
      const deliveries = await service.http('GET', `/v1/events/${eventId}/deliveries`, { key: integrator.apiKey });
      expect(deliveries.body.data).toHaveLength(1);
    });

    it('an integrator’s redeliveries create at most 160 deliveries a minute; beyond, 429 rate_limited with Retry-After', async () => {
      const integrator = await createIntegrator(service);
      const hook = await receiver();
      for (let i = 0; i < 16; i++) expect((await createEndpoint(integrator, `${hook.url}/${i}`)).status).toBe(201);
      await pay(integrator);
      const eventId = await firstEventOf(integrator);
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 12; i++) {
        // Each round waits until the previous deliveries are done: pending ones would get no new delivery.
        await hook.waitFor(hook.received.length === 0 ? 1 : hook.received.length);
        for (let waited = 0; waited < 20_000; waited += 100) {
          const deliveries: Array<{ status: string }> = [];
          for (let cursor = '', more = true; more; ) {
            const { body } = await service.http('GET', `/v1/events/${eventId}/deliveries?limit=100${cursor}`, { key: integrator.apiKey });
            deliveries.push(...body.data);
            more = body.has_more;
            cursor = `&starting_after=${body.data[body.data.length - 1]?.id}`;
          }
          if (deliveries.every((d) => d.status !== 'pending' && d.status !== 'delivering')) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        last = await service.http('POST', `/v1/events/${eventId}/redeliver`, { key: integrator.apiKey });
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expectRefused(last!, 429, 'rate_limited');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });

  describe('authentication comes first (section 2)', () => {
    it.each(['/v1/payments/x', '/v1/payments/pay_unknown', '/v1/events/%00', '/v1/webhook_endpoints/nope/deliveries'])('GET %s without a key is 401', async (path) => {
      expectRefused(await service.http('GET', path), 401, 'authentication_required');
    });

    it('a finance key on /v1/*/{id} is 401, whatever the id', async () => {
      const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Accounting' } });
      for (const path of ['/v1/payments/x', '/v1/cash_payments/pay_1', '/v1/refunds/re_1']) {
        expectRefused(await service.http('GET', path, { key: finance.body.api_key }), 401, 'authentication_required');
      }
    });

    it('with a valid key, an id that cannot exist is still 404', async () => {
      expectRefused(await service.http('GET', '/v1/payments/x', { key: shop.apiKey }), 404, 'resource_not_found');
    });
  });

  describe('impossible dates are 400 invalid_request, never rolled over', () => {
    it.each([
      '/v1/payments?created_gte=2026-02-30T00:00:00Z',
      '/v1/payments?created_lt=2026-04-31T00:00:00Z',
      '/v1/cash_payments?created_gte=2026-13-01T00:00:00Z',
      '/v1/collections?created_lt=2026-01-01T24:00:00Z',
      '/v1/events?created_gte=2025-02-29T00:00:00Z',
      '/v1/payments?created_gte=2026-01-01T10:60:00Z',
    ])('%s', async (path) => {
      expectRefused(await service.http('GET', path, { key: shop.apiKey }), 400, 'invalid_request');
    });

    it('as_of of a balance', async () => {
      expectRefused(await service.admin('GET', `/admin/v1/balances/${shop.merchant}?as_of=2026-02-30T00:00:00Z`), 400, 'invalid_request');
    });

    it('a leap day is a date', async () => {
      expect((await service.http('GET', '/v1/payments?created_gte=2028-02-29T00:00:00Z', { key: shop.apiKey })).status).toBe(200);
    });
  });

  describe('a query value that is not valid percent-encoded UTF-8 is 400 invalid_request', () => {
    it.each(['/v1/payments?order_reference=%FF', '/v1/payments?order_reference=%ZZ', '/v1/payments?order_reference=%E2%82', '/v1/events?ty%FFpe=x', '/v1/payments?order_reference=%'])(
      '%s',
      async (path) => {
        expectRefused(await service.http('GET', path, { key: shop.apiKey }), 400, 'invalid_request');
      },
    );

    it('valid encodings still work', async () => {
      expect((await service.http('GET', '/v1/payments?order_reference=caf%C3%A9+1', { key: shop.apiKey })).status).toBe(200);
    });
  });

  describe('response headers', () => {
    it('every response that carries a secret is Cache-Control: no-store', async () => {
      const integrator = await service.admin('POST', '/admin/v1/integrators', { body: { name: 'Shop' } });
      expect(integrator.status).toBe(201);
      expect(integrator.headers.get('cache-control')).toBe('no-store');
      const key = await service.admin('POST', `/admin/v1/integrators/${integrator.body.id}/api_keys`);
      expect(key.headers.get('cache-control')).toBe('no-store');
      const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Accounting' } });
      expect(finance.headers.get('cache-control')).toBe('no-store');
      const hook = await receiver();
      const endpoint = await createEndpoint(shop, `${hook.url}/secret`);
      expect(endpoint.headers.get('cache-control')).toBe('no-store');
      const rotated = await service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`, { key: shop.apiKey });
      expect(rotated.headers.get('cache-control')).toBe('no-store');
    });

    it('JSON responses, answers and errors, are X-Content-Type-Options: nosniff', async () => {
      for (const response of [await service.http('GET', '/v1/payments', { key: shop.apiKey }), await service.http('GET', '/v1/payments'), await service.http('GET', '/health')]) {
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('/docs allows no inline styles', async () => {
      const docs = await service.http('GET', '/docs');
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    });
  });

  describe('bodies the API does not read are refused by name', () => {
    const body = JSON.stringify(paymentBody('conn_x'));
    it('a gzip-compressed body is 415, naming the Content-Encoding', async () => {
      const response = await rawRequest(service.url, 'POST', '/v1/payments', {
        Authorization: `Bearer ${shop.apiKey}`,
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Idempotency-Key': idempotencyKey(),
      }, gzipSync(body));
      expectRefused(response, 415, 'invalid_request');
      expect(response.body.error.message).toMatch(/Content-Encoding/);
    });

    it('Content-Encoding: gzip on a plain body is 415 too (never ignored)', async () => {
      const response = await rawRequest(service.url, 'POST', '/v1/payments', {
        Authorization: `Bearer ${shop.apiKey}`,
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Idempotency-Key': idempotencyKey(),
      }, body);
      expectRefused(response, 415, 'invalid_request');
    });

    it('charset=utf-16 is 415, naming the charset', async () => {
      const response = await rawRequest(service.url, 'POST', '/v1/payments', {
        Authorization: `Bearer ${shop.apiKey}`,
        'Content-Type': 'application/json; charset=utf-16',
        'Idempotency-Key': idempotencyKey(),
      }, Buffer.from(body, 'utf16le'));
      expectRefused(response, 415, 'invalid_request');
      expect(response.body.error.message).toMatch(/utf-16/i);
    });

    it('charset=utf-8 (any case) is read', async () => {
      const response = await rawRequest(service.url, 'POST', '/v1/payments', {
        Authorization: `Bearer ${shop.apiKey}`,
        'Content-Type': 'application/json; charset=UTF-8',
        'Idempotency-Key': idempotencyKey(),
      }, JSON.stringify(paymentBody(shop.merchant)));
      expect(response.status).toBe(201);
    });
  });

  describe('repeated headers and wrong types are named', () => {
    it('two Idempotency-Key headers are 400 invalid_request, not joined', async () => {
      const response = await rawRequest(service.url, 'POST', '/v1/payments', {
        Authorization: `Bearer ${shop.apiKey}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': ['a1', 'b2'],
      }, JSON.stringify(paymentBody(shop.merchant)));
      expectRefused(response, 400, 'invalid_request');
      expect(response.body.error.param).toBe('Idempotency-Key');
    });

    it('an array sent for a string field is told the type it must be', async () => {
      const response = await service.http('POST', '/v1/payments', {
        key: shop.apiKey,
        body: paymentBody(shop.merchant, { order_reference: Array(300).fill('x') }),
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
      expectRefused(response, 400, 'invalid_request');
      expect(response.body.error.message).toMatch(/must be a string/);
    });
  });

  it('concurrent rotate_secret calls: every secret answered signs the next delivery', async () => {
    const integrator = await createIntegrator(service);
    const hook = await receiver();
    const endpoint = await createEndpoint(integrator, hook.url);
    const rotations = await Promise.all(Array.from({ length: 10 }, () => service.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`, { key: integrator.apiKey })));
    const answered = rotations.filter((r) => r.status === 200).map((r) => r.body.secret as string);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const refused of rotations.filter((r) => r.status !== 200)) expectRefused(refused, 409, 'invalid_status');
    await pay(integrator);
    await hook.waitFor(1);
    const [delivered] = hook.received;
    for (const secret of answered) expect(() => new Webhook(secret).verify(delivered!.body, delivered!.headers as Record<string, string>)).not.toThrow();
  });
});
