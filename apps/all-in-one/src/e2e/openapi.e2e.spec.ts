import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRoutes, GatewayModule } from '@pay/gateway-feature';
import { EVENT_TYPES } from '@pay/contracts';
import { DEFAULT_BRAND } from '@pay/hosted-ui';
import { launchBrowser, screenshot } from './browser';
import { createIntegrator, idempotencyKey, paymentBody, startTestService, type TestService } from './harness';

/**
 * The real OpenAPI validator (@seriousme/openapi-schema-validator, the official 3.1 schema and its
 * rules). It is an ES module only: it runs in a child Node process on the document written to a file.
 */
function validateOpenApi(document: unknown): unknown {
  const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
    const result = await new Validator().validate(${JSON.stringify(file)});
    process.stdout.write(JSON.stringify(result));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/** The API description: an OpenAPI 3.1 document generated from the code, and a reference rendered from it. */
describe('GET /openapi.json and GET /docs', () => {
  let service: TestService;
  let document: any;

  beforeAll(async () => {
    service = await startTestService();
    const response = await service.http('GET', '/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
  });
  afterAll(() => service.stop());

  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(validateOpenApi(document)).toEqual({ valid: true });
  });

  it('describes every route of /v1 and /admin/v1 the application registers, with its method', () => {
    const controllers = GatewayModule.forRoot({ sandbox: true, adminApiKey: 'x', rateLimitPerSecond: 0, publicBaseUrl: 'https://x', brand: DEFAULT_BRAND }).controllers as never;
    const routes = describeRoutes(controllers).filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/'));
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect({ route: `${route.method} ${path}`, described: Boolean(document.paths[path]?.[route.method.toLowerCase()]) }).toEqual({ route: `${route.method} ${path}`, described: true });
    }
  });

  it('describes request bodies from the DTOs that validate them, and the error shape', () => {
    const create = document.paths['/v1/payments'].post;
    expect(create.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CreatePaymentBody');
    const schema = document.components.schemas.CreatePaymentBody;
    expect(Object.keys(schema.properties).sort()).toEqual(['amount', 'currency', 'merchant_connection', 'order_reference', 'return_url']);
    expect(schema.properties.currency).toMatchObject({ enum: ['DZD', 'MAD', 'TND', 'XOF'] });
    expect(schema.properties.amount).toMatchObject({ type: 'integer', minimum: 1 });
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }));
    expect(document.paths['/v1/payments'].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['status', 'limit', 'starting_after', 'created_gte']));
    expect(document.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
  });

  it('declares every answer from the contracts’ schemas: no success response is a bare object, every operation named and described', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]: [string, any]) => Object.entries(methods).map(([method, op]: [string, any]) => ({ route: `${method.toUpperCase()} ${path}`, op })));
    expect(operations.length).toBeGreaterThan(60);
    const ids = new Set<string>();
    for (const { route, op } of operations) {
      const [status, success] = Object.entries(op.responses).find(([code]) => code.startsWith('2')) as [string, any];
      const [mediaType, answered] = Object.entries(success.content)[0] as [string, any];
      if (mediaType === 'application/json') {
        expect({ route, status, ref: typeof answered.schema.$ref === 'string' && answered.schema.$ref.startsWith('#/components/schemas/') }).toEqual({ route, status, ref: true });
      } else {
        // A file or a stream (the payout batch's XML, the chain's NDJSON): its text described in words.
        expect({ route, mediaType, schema: answered.schema }).toEqual({ route, mediaType: expect.stringMatching(/^application\/(xml|x-ndjson)$/), schema: { type: 'string', description: expect.any(String) } });
      }
      expect({ route, summary: typeof op.summary, description: typeof op.description, operationId: /^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/.test(op.operationId) }).toEqual({ route, summary: 'string', description: 'string', operationId: true });
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '429', '500', '503']));
      const json = op.requestBody?.content['application/json'];
      if (json) expect({ route, closed: document.components.schemas[json.schema.$ref.split('/').pop()].additionalProperties }).toEqual({ route, closed: false });
      else if (op.requestBody) expect({ route, media: Object.keys(op.requestBody.content) }).toEqual({ route, media: ['application/xml'] });
      for (const param of op.parameters ?? []) {
        if (param.in === 'query' && ['status', 'type', 'kind', 'currency'].includes(param.name)) expect({ route, param: param.name, enum: Array.isArray(param.schema.enum) }).toEqual({ route, param: param.name, enum: true });
        if (param.in === 'query' && /^(created_gte|created_lt|from|to|as_of)$/.test(param.name)) expect(param.schema.format).toBe('date-time');
      }
    }
    expect([...ids]).toEqual(expect.arrayContaining(['payments.create', 'payments.list', 'refunds.create', 'balanceTransactions.list', 'balances.retrieve', 'webhookEndpoints.delete', 'events.list']));
    const limit = document.paths['/v1/payments'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    const payment = document.components.schemas.Payment;
    expect(payment).toMatchObject({ additionalProperties: false, properties: { created_at: { type: 'string', format: 'date-time' }, status: { enum: ['pending', 'succeeded', 'declined', 'canceled', 'expired'] } } });
    expect(payment.required).toContain('amount_refunded');
    // Restricted keys: every /v1 operation names the scope it needs.
    expect(document.paths['/v1/payouts'].post).toMatchObject({ 'x-required-scope': 'payouts:write', security: [{ apiKey: [] }] });
    expect(document.paths['/v1/payouts'].get.parameters).toContainEqual(expect.objectContaining({ name: 'status', schema: expect.objectContaining({ enum: ['pending', 'in_transit', 'paid', 'failed', 'canceled'] }) }));
    expect(document.paths['/v1/api_keys'].get['x-required-scope']).toBe('*');
    expect(document.paths['/admin/v1/bank_statements'].post.requestBody.content).toHaveProperty('application/xml');
    expect(document.components.schemas.BalanceTransaction.properties.type.enum).toEqual(expect.arrayContaining(['payout', 'payout_reversal']));
  });

  it('declares the headers, the statuses of every error, the webhooks with their signature headers, and the public base URL as the server', () => {
    const create = document.paths['/v1/payments'].post;
    expect(Object.keys(create.responses['201'].headers).sort()).toEqual(['Idempotent-Replayed', 'Request-Id']);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['409', '413']));
    expect(document.components.responses.TooManyRequests.headers['Retry-After']).toMatchObject({ required: true });
    expect(document.components.responses.ServiceUnavailable.description).toContain('service_unavailable');
    expect(document.servers).toEqual([expect.objectContaining({ url: 'https://pay.example.test' })]);
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const succeeded = document.webhooks['payment.succeeded'].post;
    expect(succeeded.parameters.map((p: any) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(succeeded.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaymentEvent' });
    expect(document.components.schemas.PaymentEvent.properties.data.properties.object_version).toMatchObject({ type: 'integer' });
    const tags = new Set(document.tags.map((t: any) => t.name));
    for (const methods of Object.values(document.paths) as any[]) for (const op of Object.values(methods) as any[]) expect(tags.has(op.tags[0])).toBe(true);
  });

  it('what the service answers matches the document: statuses declared, errors in the described shape', async () => {
    const shop = await createIntegrator(service);
    const answers = [
      { method: 'post', path: '/v1/payments', response: await service.http('POST', '/v1/payments', { key: shop.apiKey, body: paymentBody(shop.merchant), headers: { 'Idempotency-Key': idempotencyKey() } }) },
      { method: 'post', path: '/v1/payments', response: await service.http('POST', '/v1/payments', { key: shop.apiKey, body: { amount: 'x' }, headers: { 'Idempotency-Key': idempotencyKey() } }) },
      { method: 'get', path: '/v1/payments', response: await service.http('GET', '/v1/payments', { key: shop.apiKey }) },
      { method: 'get', path: '/v1/payments/{id}', response: await service.http('GET', '/v1/payments/pay_unknown00000000000000000', { key: shop.apiKey }) },
      { method: 'get', path: '/admin/v1/ledger/trial_balance', response: await service.http('GET', '/admin/v1/ledger/trial_balance') },
    ];
    for (const { method, path, response } of answers) {
      const declared = document.paths[path][method].responses[String(response.status)];
      expect({ path, status: response.status, declared: Boolean(declared) }).toEqual({ path, status: response.status, declared: true });
      if (response.status >= 400) {
        expect(Object.keys(response.body)).toEqual(['error']);
        expect(Object.keys(response.body.error).every((k) => ['code', 'message', 'param'].includes(k))).toBe(true);
        expect(document.components.schemas.Error.properties.error.properties.code.enum).toContain(response.body.error.code);
      }
    }
  });

  it('GET /docs renders the reference in Chromium, from bundled assets', async () => {
    const page = await service.http('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(`${service.url}/docs`);
      await tab.waitForSelector('.opblock', { timeout: 120_000 }); // the reference renders hundreds of operations: slow on a busy machine
      expect(await tab.locator('.opblock').count()).toBeGreaterThan(50);
      expect(await tab.textContent('body')).toContain('/v1/payments');
      await screenshot(tab, 'api-docs');
    } finally {
      await browser.close();
    }
  });
});
