import { buildOpenApiDocument, GatewayModule } from '@pay/gateway-feature';
import { DEFAULT_BRAND } from '@pay/hosted-ui';
import { DocumentConformance, type Answer } from './conformance';

const controllers = GatewayModule.forRoot({ sandbox: true, adminApiKey: 'x', rateLimitPerSecond: 0, publicBaseUrl: 'https://pay.example.test', brand: DEFAULT_BRAND }).controllers ?? [];
const conformance = new DocumentConformance(buildOpenApiDocument(controllers, { title: 'Payments API', version: '1', serverUrl: 'https://pay.example.test' }) as never);

const payment = {
  id: 'pay_0123456789abcdefghijABCD',
  object: 'payment',
  status: 'pending',
  decline_reason: null,
  amount: 1250000,
  currency: 'DZD',
  order_reference: 'order-1',
  merchant_connection: 'conn_0123456789abcdefghijABCD',
  authorization_url: 'https://pay.example.test/pay/pay_0123456789abcdefghijABCD',
  return_url: 'https://shop.example/return',
  fee_amount: null,
  net_amount: null,
  amount_refunded: 0,
  expires_at: '2026-11-22T10:30:00.000Z',
  succeeded_at: null,
  created_at: '2026-11-22T10:00:00.000Z',
};

const answer = (overrides: Partial<Answer> = {}): Answer => ({
  method: 'GET',
  path: '/v1/payments/pay_0123456789abcdefghijABCD',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  headers: new Headers({ 'Request-Id': 'req_1' }),
  body: payment,
  ...overrides,
});

/** The e2e suites' response check (harness.ts): what it lets through and what fails the test. */
describe('an answer checked against the OpenAPI document', () => {
  it('passes when its route, status, media type, headers and body are as declared', () => {
    expect(conformance.check(answer())).toEqual([]);
    expect(conformance.check(answer({ method: 'GET', path: '/v1/payments?limit=1', body: { object: 'list', data: [payment], has_more: false } }))).toEqual([]);
    expect(conformance.check(answer({ status: 404, body: { error: { code: 'resource_not_found', message: 'no such payment' } } }))).toEqual([]);
  });

  it('fails on a field the schema does not declare', () => {
    expect(conformance.check(answer({ body: { ...payment, internal_state: 'x' } })).join()).toContain("must NOT have additional properties 'internal_state'");
  });

  it('fails on a field of another type, a missing field, or a value outside its enum', () => {
    expect(conformance.check(answer({ body: { ...payment, amount: '1250000' } })).join()).toContain('/amount must be integer');
    const { created_at: _, ...withoutCreatedAt } = payment;
    expect(conformance.check(answer({ body: withoutCreatedAt })).join()).toContain("must have required property 'created_at'");
    expect(conformance.check(answer({ body: { ...payment, status: 'authorized' } })).join()).toContain('/status must be equal to one of the allowed values');
    expect(conformance.check(answer({ body: { ...payment, created_at: 'yesterday' } })).join()).toContain('/created_at must match format "date-time"');
  });

  it('fails on a status the operation does not declare, or an error body of another shape', () => {
    expect(conformance.check(answer({ status: 202 })).join()).toContain('status 202 is not declared');
    expect(conformance.check(answer({ status: 400, body: { message: 'Bad Request', statusCode: 400 } })).join()).toContain("must have required property 'error'");
  });

  it('fails without the Request-Id header, and a 429 without Retry-After', () => {
    expect(conformance.check(answer({ headers: new Headers() })).join()).toContain('no Request-Id header');
    const limited = { status: 429, body: { error: { code: 'rate_limited', message: 'slow down' } } };
    expect(conformance.check(answer({ ...limited, headers: new Headers({ 'Request-Id': 'req_1' }) })).join()).toContain('no Retry-After header');
    expect(conformance.check(answer({ ...limited, headers: new Headers({ 'Request-Id': 'req_1', 'Retry-After': '1' }) }))).toEqual([]);
  });

  it('fails on a media type the operation does not declare; CSV where it is declared passes', () => {
    expect(conformance.check(answer({ contentType: 'text/html' })).join()).toContain("media type 'text/html' is not declared");
    expect(conformance.check(answer({ path: '/admin/v1/ledger/fee_revenue?from=a&to=b', contentType: 'text/csv; charset=utf-8', body: 'currency,total\n' }))).toEqual([]);
  });

  it('an unknown route under /v1 must be a 404 in the error shape; routes outside /v1 and /admin/v1 are not checked', () => {
    expect(conformance.check(answer({ path: '/v1/nothing_here', status: 404, body: { error: { code: 'resource_not_found', message: 'no route' } } }))).toEqual([]);
    expect(conformance.check(answer({ path: '/v1/nothing_here', status: 200, body: {} })).join()).toContain('is not described');
    expect(conformance.check(answer({ path: '/health', status: 200, body: { status: 'ok' } }))).toEqual([]);
  });
});
