import { ServiceError, type RequestTopic } from '@pay/contracts';
import { ID_LENGTH_MAX, newId, TRACE_HEADER_LENGTH_MAX } from '@pay/kernel';
import {
  beginSpan,
  busMessagesHandledTotal,
  busRequestDurationSeconds,
  busRequestTimeoutsTotal,
  contextFromTraceHeaders,
  currentLogContext,
  endSpan,
  hostLogger,
  record,
  runInSpan,
  runWithLogContext,
  SpanKind,
  traceHeadersOf,
  type LogContext,
  type Span,
  type TraceContext,
} from '@pay/observability';

/**
 * What a bus request carries besides its message, so that the handler's log lines name the work that
 * caused them and its spans join the caller's trace: in-process it is handed over with the message,
 * over Kafka it travels in these headers.
 */
export interface MessageContext {
  requestId?: string;
  correlationId: string;
  /** W3C trace context (`traceparent`, `tracestate`) of the caller's span, when tracing over Kafka. */
  trace?: Record<string, string>;
  /** In one process, the caller's trace context itself: the handler's span is its child. */
  parent?: TraceContext;
}

/** Where a bus request travels: named on its spans (`messaging.system`). */
export type BusSystem = 'kafka' | 'in_process';

export const REQUEST_ID_HEADER = 'request-id';
export const CORRELATION_ID_HEADER = 'correlation-id';
/** W3C trace context headers, beside the two above. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
/** Ids we make are short base62 with a prefix; a header that is not one is ignored, not logged. */
const ID_SHAPE = new RegExp(`^[A-Za-z0-9_-]{1,${ID_LENGTH_MAX}}$`);
/** Replies that say the request was not served (an outage, a timeout, a bug) mark its spans as errors; a rule's refusal does not. */
const FAILED_OUTCOMES = new Set(['internal_error', 'service_unavailable']);

/** The caller's ids, to send with a request; a request made outside any work in hand starts a new chain. */
export function outgoingContext(): MessageContext {
  const context = currentLogContext();
  if (!context) return { correlationId: newId('correlation') };
  return context.requestId === undefined ? { correlationId: context.correlationId } : { requestId: context.requestId, correlationId: context.correlationId };
}

export function contextHeaders(context: MessageContext): Record<string, string> {
  const headers: Record<string, string> = { ...context.trace, [CORRELATION_ID_HEADER]: context.correlationId };
  if (context.requestId !== undefined) headers[REQUEST_ID_HEADER] = context.requestId;
  return headers;
}

/** The context of a Kafka message from its headers (decoded to strings by Nest's parser). */
export function contextFromHeaders(headers: Record<string, unknown> | undefined): MessageContext {
  const requestId = headers?.[REQUEST_ID_HEADER];
  const correlationId = headers?.[CORRELATION_ID_HEADER];
  const trace = traceHeadersFrom(headers);
  return {
    ...(isId(requestId) ? { requestId } : {}),
    correlationId: isId(correlationId) ? correlationId : newId('correlation'),
    ...(trace ? { trace } : {}),
  };
}

const isId = (value: unknown): value is string => typeof value === 'string' && ID_SHAPE.test(value);

/** The trace headers present and of a sane length; their syntax is the propagator's to check (it ignores a bad one). */
function traceHeadersFrom(headers: Record<string, unknown> | undefined): Record<string, string> | undefined {
  let trace: Record<string, string> | undefined;
  for (const name of TRACE_HEADERS) {
    const value = headers?.[name];
    if (typeof value === 'string' && value.length <= TRACE_HEADER_LENGTH_MAX) (trace ??= {})[name] = value;
  }
  return trace;
}

/** The outcome of a request or handler as its spans name it: `ok`, or the error code answered. */
const outcomeOf = (error: unknown): string => (error instanceof ServiceError ? error.code : 'internal_error');

const endBusSpan = (span: Span | undefined, outcome: string): void =>
  endSpan(span, { failed: FAILED_OUTCOMES.has(outcome), attributes: { 'pay.bus.outcome': outcome } });

const busSpanAttributes = (topic: RequestTopic, system: BusSystem, operation: 'send' | 'process') => ({
  'messaging.system': system,
  'messaging.destination.name': topic,
  'messaging.operation.type': operation,
});

/**
 * A request as its caller makes it: a producer span `send <topic>` (a child of the work in hand) from
 * sending to the reply, and the context to send with it, the span's trace context included so that
 * the handler's span is its child.
 */
export async function traceRequest<T>(topic: RequestTopic, system: BusSystem, send: (context: MessageContext) => Promise<T>): Promise<T> {
  const span = beginSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes: busSpanAttributes(topic, system, 'send') });
  const context = outgoingContext();
  if (span) context.trace = traceHeadersOf(span);
  try {
    const reply = await send(context);
    endBusSpan(span, 'ok');
    return reply;
  } catch (error) {
    endBusSpan(span, outcomeOf(error));
    throw error;
  }
}

/**
 * Runs a handler in the request's log context (a new context object: the handler's notes do not
 * reach the caller's lines) and, when tracing, in a consumer span `process <topic>` continuing the
 * caller's trace; writes one debug line when it is done: topic, duration, outcome. An unexpected error
 * (not a ServiceError) is handed to `reportUnexpected` inside that context, so that its log line names
 * the request too.
 */
export async function handleInContext<T>(
  topic: RequestTopic,
  system: BusSystem,
  context: MessageContext,
  handle: () => Promise<T>,
  reportUnexpected?: (error: unknown) => void,
): Promise<T> {
  const logContext: LogContext = context.requestId === undefined ? { correlationId: context.correlationId } : { requestId: context.requestId, correlationId: context.correlationId };
  const parent = context.parent ?? contextFromTraceHeaders(context.trace);
  const span = beginSpan(`process ${topic}`, { kind: SpanKind.CONSUMER, parent, attributes: busSpanAttributes(topic, system, 'process') });
  return runWithLogContext(logContext, () =>
    runInSpan(
      span,
      async () => {
        const startedAt = performance.now();
        let outcome = 'ok';
        try {
          return await handle();
        } catch (error) {
          outcome = outcomeOf(error);
          if (!(error instanceof ServiceError)) reportUnexpected?.(error);
          throw error;
        } finally {
          endBusSpan(span, outcome);
          record(() => busMessagesHandledTotal.inc({ topic, outcome }));
          const logger = hostLogger();
          if (logger.isLevelEnabled('debug')) logger.debug({ context: 'bus', topic, outcome, duration_ms: Math.round((performance.now() - startedAt) * 100) / 100 }, 'bus message handled');
        }
      },
      parent,
    ),
  );
}

/** Times a request as its caller sees it, errors included. */
export async function timeRequest<T>(topic: RequestTopic, reply: Promise<T>): Promise<T> {
  const startedAt = performance.now();
  try {
    return await reply;
  } finally {
    record(() => busRequestDurationSeconds.observe({ topic }, (performance.now() - startedAt) / 1000));
  }
}

/** The error of a request that got no reply in time, counted. */
export function requestTimedOut(topic: RequestTopic, timeoutMs: number, why = ''): ServiceError {
  record(() => busRequestTimeoutsTotal.inc({ topic }));
  return new ServiceError('service_unavailable', `${topic} did not answer within ${timeoutMs} ms${why}`);
}
