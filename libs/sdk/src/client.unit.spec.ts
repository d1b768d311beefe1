import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { AuthenticationError, ConnectionError, IdempotencyError, InvalidRequestError, NotFoundError, Payments, PaymentsError, RateLimitError } from './index';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

/** A real HTTP server on loopback: records every request and answers from a script (or a handler). */
class ScriptedServer {
  readonly seen: Seen[] = [];
  private script: Reply[] = [];
  handler: ((request: Seen) => Reply) | undefined;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const seen = { method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.seen.push(seen);
        const reply = this.script.shift() ?? this.handler?.(seen) ?? { status: 500, body: { error: { code: 'internal_error', message: 'script exhausted' } } };
        response
          .writeHead(reply.status, { 'content-type': 'application/json', 'request-id': `req_${this.seen.length}`, ...reply.headers })
          .end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this;
  }

  reply(...replies: Reply[]): void {
    this.script.push(...replies);
  }

  reset(): void {
    this.seen.length = 0;
    this.script = [];
    this.handler = undefined;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

const payment = (n: number) => ({ id: `pay_${String(n).padStart(4, '0')}`, object: 'payment', status: 'succeeded', amount: 1000 + n });
const error = (code: string, message: string, param?: string) => ({ error: { code, message, ...(param ? { param } : {}) } });
const paymentParams = { amount: 1_250_000, currency: 'DZD', order_reference: '1001', merchant_connection: 'conn_1', return_url: 'https://shop.example/return' } as const;

describe('Payments client (against a local HTTP server)', () => {
  let server: ScriptedServer;
  let client: Payments;

  beforeAll(async () => {
    server = await new ScriptedServer().start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.reset();
    client = new Payments({ apiKey: 'sk_test_123', baseUrl: server.url, initialRetryDelayMs: 10, maxRetryDelayMs: 2_000 });
  });

  it('sends the bearer key and JSON, and answers the parsed resource', async () => {
    server.reply({ status: 200, body: payment(1) });
    await expect(client.payments.retrieve('pay_0001')).resolves.toEqual(payment(1));
    expect(server.seen[0]).toMatchObject({ method: 'GET', url: '/v1/payments/pay_0001' });
    expect(server.seen[0]!.headers['authorization']).toBe('Bearer sk_test_123');
    expect(server.seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('retries a 503 and then answers the 200, with the same Idempotency-Key on every attempt', async () => {
    server.reply(
      { status: 503, body: error('service_unavailable', 'try again') },
      { status: 502, body: { unexpected: true } },
      { status: 201, body: payment(2) },
    );
    await expect(client.payments.create(paymentParams)).resolves.toEqual(payment(2));
    expect(server.seen).toHaveLength(3);
    const keys = server.seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(server.seen.map((request) => JSON.parse(request.body))).toEqual([paymentParams, paymentParams, paymentParams]);
    // A second logical call gets a key of its own.
    server.reply({ status: 201, body: payment(3) });
    await client.payments.create(paymentParams);
    expect(server.seen[3]!.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('uses the Idempotency-Key the caller gives, on every retry, and retries 409 idempotency_key_in_use', async () => {
    server.reply({ status: 409, body: error('idempotency_key_in_use', 'a request with this key is in progress') }, { status: 201, body: { id: 're_1', object: 'refund' } });
    await client.refunds.create({ payment: 'pay_1', amount: 100 }, { idempotencyKey: 'refund-order-1001' });
    expect(server.seen.map((request) => request.headers['idempotency-key'])).toEqual(['refund-order-1001', 'refund-order-1001']);
  });

  it('honours Retry-After on 429', async () => {
    server.reply({ status: 429, body: error('rate_limited', 'slow down'), headers: { 'retry-after': '1' } }, { status: 200, body: payment(4) });
    await expect(client.payments.retrieve('pay_0004')).resolves.toEqual(payment(4));
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('never retries another 4xx: a typed error with code, param, status and Request-Id', async () => {
    server.reply({ status: 400, body: error('invalid_amount', 'amount must be a positive integer in minor units', 'amount') });
    const failure = await client.payments.create({ ...paymentParams, amount: -1 }).catch((e: unknown) => e);
    expect(server.seen).toHaveLength(1);
    expect(failure).toBeInstanceOf(InvalidRequestError);
    expect(failure).toBeInstanceOf(PaymentsError);
    expect(failure).toMatchObject({ status: 400, code: 'invalid_amount', param: 'amount', requestId: 'req_1', message: 'amount must be a positive integer in minor units' });
  });

  it('maps each family of codes to its class', async () => {
    server.reply(
      { status: 401, body: error('authentication_required', 'no key') },
      { status: 404, body: error('resource_not_found', "no such payment: 'pay_x'") },
      { status: 409, body: error('idempotency_key_reused', 'another body') },
    );
    await expect(client.payments.retrieve('pay_x')).rejects.toBeInstanceOf(AuthenticationError);
    const notFound = await client.payments.retrieve('pay_x').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ code: 'resource_not_found', status: 404, requestId: 'req_2' });
    const reused = await client.payments.create(paymentParams).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(IdempotencyError);
    expect(reused).toMatchObject({ code: 'idempotency_key_reused' });
    expect(server.seen).toHaveLength(3);
  });

  it('gives up after maxRetries, with the last error', async () => {
    server.handler = () => ({ status: 429, body: error('rate_limited', 'slow down'), headers: { 'retry-after': '0' } });
    const limited = new Payments({ apiKey: 'sk_test_123', baseUrl: server.url, maxRetries: 2, initialRetryDelayMs: 1 });
    const failure = await limited.payments.retrieve('pay_1').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).retryAfterSeconds).toBe(0);
    expect(server.seen).toHaveLength(3);
  });

  it('does not retry a 5xx of an action that carries no Idempotency-Key (it may have happened)', async () => {
    server.reply({ status: 500, body: error('internal_error', 'boom') });
    await expect(client.webhookEndpoints.rotateSecret('we_1')).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect(server.seen).toHaveLength(1);
  });

  it('retries network errors, then fails with a ConnectionError', async () => {
    const closed = await new ScriptedServer().start();
    await closed.stop();
    const offline = new Payments({ apiKey: 'sk_test_123', baseUrl: closed.url, maxRetries: 2, initialRetryDelayMs: 1 });
    const failure = await offline.payments.retrieve('pay_1').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'connection_error', status: undefined });
  });

  it('times out an attempt after timeoutMs', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const impatient = new Payments({ apiKey: 'sk_test_123', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0, timeoutMs: 100 });
    const failure = await impatient.payments.retrieve('pay_1').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'timeout' });
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('auto-paginates with starting_after across every page, keeping the filters', async () => {
    const all = Array.from({ length: 7 }, (_, i) => payment(7 - i)); // newest first
    server.handler = ({ url }) => {
      const query = new URL(url, 'http://x').searchParams;
      const limit = Number(query.get('limit') ?? 10);
      const after = query.get('starting_after');
      const start = after ? all.findIndex((p) => p.id === after) + 1 : 0;
      return { status: 200, body: { object: 'list', data: all.slice(start, start + limit), has_more: start + limit < all.length } };
    };
    const seen: string[] = [];
    for await (const p of client.payments.list({ status: 'succeeded', limit: 3 })) seen.push(p.id);
    expect(seen).toEqual(all.map((p) => p.id));
    expect(server.seen.map((request) => request.url)).toEqual([
      '/v1/payments?status=succeeded&limit=3',
      '/v1/payments?status=succeeded&limit=3&starting_after=pay_0005',
      '/v1/payments?status=succeeded&limit=3&starting_after=pay_0002',
    ]);

    const page = await client.payments.list({ limit: 2 }).page();
    expect(page).toEqual({ object: 'list', data: all.slice(0, 2), has_more: true });
    expect(await client.payments.list({ limit: 100 }).toArray()).toHaveLength(7);
  });

  it('sends Date filters as ISO strings and encodes path ids', async () => {
    server.reply({ status: 200, body: { object: 'list', data: [], has_more: false } }, { status: 200, body: { object: 'balance' } });
    await client.balanceTransactions.list({ connection: 'conn_1', created_gte: new Date('2026-11-22T00:00:00Z') }).page();
    await client.balances.retrieve('conn/../x');
    expect(server.seen[0]!.url).toBe('/v1/balance_transactions?connection=conn_1&created_gte=2026-11-22T00%3A00%3A00.000Z');
    expect(server.seen[1]!.url).toBe('/v1/balances/conn%2F..%2Fx');
  });
});
