import { randomInt } from 'node:crypto';
import { createIntegrator, DISTRIBUTED, idempotencyKey, paymentBody, startTestService, type Integrator, type Response, type TestService } from './harness';
import { Receiver } from './receiver';

/**
 * The service's logs (docs/operations.md) over every flow that handles a secret: everything it writes
 * is read back (all-in-one: the log destination; distributed: every app's output) and searched for
 * each secret's actual value, and the request lines are followed across the bus by their request_id.
 */
describe('structured logs: no secret written, every line of a request names it', () => {
  let service: TestService | undefined;
  let shop: Integrator;
  let receiver: Receiver;
  /** Every secret value the flows below handled: keys, PIN, webhook secrets, session, handover code, database password. */
  const secrets = new Map<string, string>();
  let created: Response;
  let authorized: Response;
  let output = '';
  let lines: LogLine[] = [];

  /** Stops the service and keeps what it logged: read after the stop, every line is written (distributed: every app's output read). */
  const stop = async () => {
    if (!service) return;
    const running = service;
    service = undefined;
    await running.stop();
    output = running.logs();
    lines = output.split('\n').flatMap((text) => (text.startsWith('{') ? [JSON.parse(text) as LogLine] : []));
  };

  beforeAll(async () => {
    const running = await startTestService({ LOG_LEVEL: 'debug' }, { captureLogs: true });
    service = running;
    receiver = await new Receiver().start();
    const password = new URL(running.databaseUrl).password;
    expect(password).not.toBe('');
    secrets.set('database password', decodeURIComponent(password));
    secrets.set('admin API key', running.adminKey);

    shop = await createIntegrator(running);
    secrets.set('integrator API key', shop.apiKey);

    const endpoint = await running.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: receiver.url, enabled_events: ['payment.succeeded'] } });
    expect(endpoint.status).toBe(201);
    secrets.set('webhook secret', endpoint.body.secret);
    const rotated = await running.http('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`, { key: shop.apiKey });
    expect(rotated.status).toBe(200);
    secrets.set('rotated webhook secret', rotated.body.secret);

    // A PIN of its own, so that finding it in the output means it was written there.
    const pin = String(randomInt(100_000, 1_000_000));
    const phone = `+21355${randomInt(1_000_000, 10_000_000)}`;
    secrets.set('PIN', pin);
    const customer = await running.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone, pin, currency: 'DZD' } });
    expect(customer.status).toBe(201);
    expect((await running.admin('POST', '/admin/v1/topups', { body: { account: customer.body.id, amount: 5_000_000, currency: 'DZD' } })).status).toBe(201);

    created = await running.http('POST', '/v1/payments', { key: shop.apiKey, body: paymentBody(shop.merchant), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(201);
    authorized = await running.http('POST', `/v1/test_helpers/payments/${created.body.id}/authorize`, { key: shop.apiKey, body: { customer: customer.body.id } });
    expect(authorized.body.status).toBe('succeeded');
    await receiver.waitFor(1);

    // The hosted payment page: the customer's PIN in a form, and the session it opens.
    const session = await signInOnPaymentPage(running, shop, phone, pin);
    secrets.set('hosted session', session);

    // A collection's handover code.
    const wholesaler = await running.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'wholesaler', name: 'Grossiste', currency: 'DZD' } });
    const collection = await running.http('POST', '/v1/collections', {
      key: shop.apiKey,
      body: { amount: 1_250_000, currency: 'DZD', order_reference: 'delivery-1', beneficiary_connection: wholesaler.body.id },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(collection.status).toBe(201);
    const code = await running.http('GET', `/v1/collections/${collection.body.id}/handover_code`, { key: shop.apiKey });
    expect(code.status).toBe(200);
    secrets.set('handover code', code.body.code);

    await stop();
  });

  afterAll(async () => {
    await stop();
    await receiver?.stop();
  });

  it('writes JSON lines', () => {
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String), app: expect.any(String) });
  });

  it('writes no secret: keys, PIN, webhook secrets, hosted session, handover code, database password', () => {
    expect(secrets.size).toBe(8);
    for (const [name, value] of secrets) {
      expect(value.length).toBeGreaterThanOrEqual(6);
      // Digits alone (PIN, code) are searched as a whole number, not inside a longer one (a time, an id).
      const pattern = /^\d+$/.test(value) ? new RegExp(`(?<![0-9.])${value}(?![0-9])`) : new RegExp(escape(value));
      expect({ secret: name, found: pattern.test(output) }).toEqual({ secret: name, found: false });
    }
  });

  it('one line per HTTP request: request_id (its Request-Id), method, route pattern, status, duration, integrator', () => {
    const line = requestLine(created);
    expect(line).toMatchObject({
      msg: 'request completed',
      request_id: created.headers.get('request-id'),
      correlation_id: created.headers.get('request-id'),
      integrator_id: shop.id,
      method: 'POST',
      route: '/v1/payments',
      status: 201,
      duration_ms: expect.any(Number),
    });
    if (DISTRIBUTED) expect(line.app).toBe('gateway');
    expect(lines.filter((l) => l.msg === 'request completed' && l.request_id === line.request_id)).toHaveLength(1);
  });

  it('the lines a request causes in the apps it reaches share its request_id: payments creates, the ledger moves the money', () => {
    const causedByCreate = linesOf(created);
    expect(causedByCreate).toContainEqual(expect.objectContaining({ msg: 'bus message handled', topic: 'payments.create', outcome: 'ok', ...(DISTRIBUTED ? { app: 'payments' } : {}) }));

    const causedByAuthorize = linesOf(authorized);
    expect(requestLine(authorized)).toMatchObject({ route: '/v1/test_helpers/payments/:id/authorize', status: 200 });
    expect(causedByAuthorize).toContainEqual(expect.objectContaining({ msg: 'bus message handled', topic: 'payments.authorize', ...(DISTRIBUTED ? { app: 'payments' } : {}) }));
    expect(causedByAuthorize).toContainEqual(expect.objectContaining({ msg: 'bus message handled', topic: 'ledger.transfer', outcome: 'ok', ...(DISTRIBUTED ? { app: 'ledger' } : {}) }));
    for (const line of [...causedByCreate, ...causedByAuthorize]) expect(line.correlation_id).toBe(line.request_id);
  });

  const requestLine = (response: Response): LogLine => {
    const requestId = response.headers.get('request-id');
    const found = lines.find((line) => line.msg === 'request completed' && line.request_id === requestId);
    expect(found).toBeDefined();
    return found!;
  };
  const linesOf = (response: Response): LogLine[] => lines.filter((line) => line.request_id === response.headers.get('request-id') && line.msg !== 'request completed');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
});

interface LogLine {
  level: string;
  time: string;
  app: string;
  msg?: string;
  request_id?: string;
  correlation_id?: string;
  [field: string]: unknown;
}

/** Signs the customer in on a payment's hosted page with the PIN, as the form posts it; answers the session cookie's value. */
async function signInOnPaymentPage(service: TestService, shop: Integrator, phone: string, pin: string): Promise<string> {
  const payment = await service.http('POST', '/v1/payments', { key: shop.apiKey, body: paymentBody(shop.merchant), headers: { 'Idempotency-Key': idempotencyKey() } });
  const path = new URL(payment.body.authorization_url).pathname;
  const page = await fetch(`${service.url}${path}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const signedIn = await fetch(`${service.url}${path}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams({ phone, pin, csrf: csrf ?? '' }).toString(),
  });
  expect(signedIn.status).toBe(303);
  expect(signedIn.headers.get('location')).not.toMatch(/error=/);
  const session = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!.split('='))
    .find(([name, value]) => value && !cookie.includes(`${name}=`));
  expect(session).toBeDefined();
  return decodeURIComponent(session![1]!);
}
