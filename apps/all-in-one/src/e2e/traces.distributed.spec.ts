import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';
import { startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { httpClient, idempotencyKey, PUBLIC_BASE_URL, type Client } from './harness';

/**
 * Traces in the distributed topology: every app exports OTLP/HTTP JSON to a receiver in this test
 * process, and one authorization through the gateway is one trace across gateway → payments → ledger
 * and webhooks (the event recorded), each span's parent in it.
 */
/** The apps batch spans (OTEL_BSP_SCHEDULE_DELAY below) and CI is slow: generous. */
const SPANS_ARRIVE_WITHIN_MS = 60_000;
/** Short batches so that the test does not wait out the SDK's default 5 s. */
const BATCH_DELAY_MS = '200';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, unknown>;
}

/** A minimal OTLP/HTTP JSON receiver: every span kept in memory, with its resource's service.name. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** The bodies as received, to search for secrets. */
  readonly bodies: string[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(body);
        if (request.url === '/v1/traces') this.keep(JSON.parse(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private keep(request: OtlpTraceRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(valuesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            attributes: valuesOf(span.attributes),
          });
        }
      }
    }
  }
}

type OtlpAttribute = { key: string; value: Record<string, unknown> };
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

/** OTLP JSON attributes ({key, value: {stringValue | intValue | …}}) as a plain object. */
const valuesOf = (attributes: OtlpAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));

describe('traces across the distributed topology', () => {
  const receiver = new OtlpReceiver();
  const adminKey = `admin_${randomBase62(32)}`;
  let topology: DistributedTopology;
  let http: Client;
  const admin: Client = (method, path, options = {}) => http(method, path, { key: adminKey, ...options });

  beforeAll(async () => {
    const endpoint = await receiver.start();
    topology = await startDistributedTopology({
      env: {
        SANDBOX: 'true',
        RATE_LIMIT_PER_SECOND: '0',
        PUBLIC_BASE_URL,
        ADMIN_API_KEY: adminKey,
        DATABASE_URL: await createTestDatabase('traces'),
        LOG_LEVEL: 'error',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_BSP_SCHEDULE_DELAY: BATCH_DELAY_MS,
      },
      dataDir: await mkdtemp(join(tmpdir(), 'pay-traces-')),
    });
    http = httpClient(topology.url);
  });
  afterAll(async () => {
    await topology?.stop();
    await receiver.stop();
  });

  it('one authorization is one trace: gateway → payments → ledger, and the event recorded by webhooks, parents intact, no API key in any span', async () => {
    const integrator = (await admin('POST', '/admin/v1/integrators', { body: { name: 'Traced shop' } })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { body: { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' } })).body;
    const customer = (await admin('POST', '/admin/v1/customers', { body: { name: 'C', phone: '+213555000777', pin: '1234', currency: 'DZD' } })).body;
    expect((await admin('POST', '/admin/v1/topups', { body: { account: customer.id, amount: 5_000_000, currency: 'DZD' } })).status).toBe(201);
    const apiKey: string = integrator.api_key;
    const payment = await http('POST', '/v1/payments', {
      key: apiKey,
      headers: { 'Idempotency-Key': idempotencyKey() },
      body: { amount: 1_250_000, currency: 'DZD', order_reference: 'traced-1', merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
    });
    expect(payment.status).toBe(201);
    const authorized = await http('POST', `/v1/test_helpers/payments/${payment.body.id}/authorize`, { key: apiKey, body: { customer: customer.id } });
    expect(authorized.body.status).toBe('succeeded');

    const route = 'POST /v1/test_helpers/payments/:id/authorize';
    const services = ['gateway', 'payments', 'ledger', 'webhooks'];
    const complete = (spans: ReceivedSpan[]) => services.every((service) => spans.some((span) => span.service === service)) && orphans(spans).length === 0;
    let spans: ReceivedSpan[] = [];
    for (const deadline = Date.now() + SPANS_ARRIVE_WITHIN_MS; Date.now() < deadline; await sleep(250)) {
      const request = receiver.spans.find((span) => span.service === 'gateway' && span.name === route);
      spans = request ? receiver.trace(request.traceId) : [];
      if (complete(spans)) break;
    }

    const request = spans.find((span) => span.name === route);
    expect(request).toMatchObject({ service: 'gateway', parentSpanId: undefined, attributes: { 'http.route': '/v1/test_helpers/payments/:id/authorize', 'http.response.status_code': 200 } });
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(services));
    expect(orphans(spans)).toEqual([]);
    expect(spans.filter((span) => span.parentSpanId === undefined)).toEqual([request]);
    // The hops named by topic, each handler's span the child of its caller's.
    const hop = (service: string, name: string) => spans.find((span) => span.service === service && span.name === name);
    for (const [caller, callee, topic] of [
      ['gateway', 'payments', 'payments.authorize'],
      ['payments', 'ledger', 'ledger.transfer'],
      ['payments', 'webhooks', 'events.record'],
    ] as const) {
      const send = hop(caller, `send ${topic}`);
      expect({ topic, send: send?.name }).toEqual({ topic, send: `send ${topic}` });
      expect(hop(callee, `process ${topic}`)?.parentSpanId).toBe(send!.spanId);
    }
    // PostgreSQL's queries are in it too, under the work that made them.
    expect(spans.some((span) => span.service === 'ledger' && span.attributes['db.system.name'] === 'postgresql')).toBe(true);

    const everything = receiver.bodies.join('\n');
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(adminKey);
    for (const span of receiver.spans) expect(JSON.stringify(span.attributes)).not.toMatch(/sk_[A-Za-z0-9]{8}|Bearer /);
  });
});

/** Spans whose parent is not in the trace (a broken link); the request's own span is the one root. */
const orphans = (spans: ReceivedSpan[]): ReceivedSpan[] => spans.filter((span) => span.parentSpanId !== undefined && !spans.some((other) => other.spanId === span.parentSpanId));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
