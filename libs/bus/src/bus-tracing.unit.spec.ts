import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ServiceError } from '@pay/contracts';
import { flushTracing, SpanKind, startTracing, stopTracing, withSpan } from '@pay/observability';
import { contextFromHeaders, contextHeaders, handleInContext, traceRequest } from './bus-observability';
import { InProcessBus } from './in-process-bus';
import type { Request } from './message-bus';

const balance = (owner: string) => ({ object: 'balance' as const, owner, currency: 'DZD' as const, available: 0 });

describe('traces across the bus', () => {
  const exporter = new InMemorySpanExporter();
  let bus: InProcessBus;

  beforeAll(() => startTracing('bus-test', { exporter }));
  afterAll(() => stopTracing());
  beforeEach(() => {
    exporter.reset();
    bus = new InProcessBus();
    // A handler that makes a request of its own, as payments calls the ledger while handling an authorization.
    bus.handle('ledger.transfer', async () => {
      await bus.request('ledger.get-balance', { owner: 'own_1' } as Request<'ledger.get-balance'>);
      throw new ServiceError('invalid_status', 'not enough');
    });
    bus.handle('ledger.get-balance', async ({ owner }) => balance(owner));
  });

  const finished = async (): Promise<ReadableSpan[]> => {
    await flushTracing();
    return exporter.getFinishedSpans();
  };
  const named = (spans: ReadableSpan[], name: string): ReadableSpan => {
    const span = spans.find((s) => s.name === name);
    if (!span) throw new Error(`no span ${name} among ${spans.map((s) => s.name).join(', ')}`);
    return span;
  };
  const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

  it("continues the caller's trace in the handler, and the handler's own requests: in one process, one span per hop", async () => {
    await withSpan('POST /v1/test', { kind: SpanKind.SERVER }, () =>
      expect(bus.request('ledger.transfer', { operationId: 'op_1' } as unknown as Request<'ledger.transfer'>)).rejects.toThrow('not enough'),
    );
    const spans = await finished();
    const root = named(spans, 'POST /v1/test');
    const process = named(spans, 'process ledger.transfer');
    const innerProcess = named(spans, 'process ledger.get-balance');
    expect(spans.map((s) => s.name).sort()).toEqual(['POST /v1/test', 'process ledger.get-balance', 'process ledger.transfer']);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([root.spanContext().traceId]));
    expect(parentOf(process)).toBe(root.spanContext().spanId);
    expect(parentOf(innerProcess)).toBe(process.spanContext().spanId);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes).toMatchObject({ 'messaging.destination.name': 'ledger.transfer', 'messaging.system': 'in_process', 'pay.bus.outcome': 'invalid_status' });
  });

  it('starts a new trace for a request made outside any traced work', async () => {
    await bus.request('ledger.get-balance', { owner: 'own_1' } as Request<'ledger.get-balance'>);
    const spans = await finished();
    expect(spans.map((s) => s.name)).toEqual(['process ledger.get-balance']);
    expect(parentOf(named(spans, 'process ledger.get-balance'))).toBeUndefined();
  });

  it('carries the trace context in Kafka headers beside the request and correlation ids, and continues it from them', async () => {
    let headers: Record<string, string> = {};
    await traceRequest('ledger.get-balance', 'kafka', async (context) => {
      headers = contextHeaders(context);
      return handleInContext('ledger.get-balance', 'kafka', contextFromHeaders(headers), async () => balance('own_1'));
    });
    expect(Object.keys(headers).sort()).toEqual(['correlation-id', 'traceparent']);
    const spans = await finished();
    const send = named(spans, 'send ledger.get-balance');
    expect(headers['traceparent']).toBe(`00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`);
    expect(parentOf(named(spans, 'process ledger.get-balance'))).toBe(send.spanContext().spanId);
  });

  it('ignores a malformed or oversized traceparent: the handler starts a trace of its own', async () => {
    for (const traceparent of ['not-a-traceparent', `00-${'a'.repeat(600)}-01`]) {
      exporter.reset();
      await handleInContext('ledger.get-balance', 'kafka', contextFromHeaders({ traceparent, 'correlation-id': 'cor_1' }), async () => balance('own_1'));
      const process = named(await finished(), 'process ledger.get-balance');
      expect(parentOf(process)).toBeUndefined();
    }
  });
});
