import { ServiceError, type RequestTopic } from '@pay/contracts';
import { newId } from '@pay/kernel';
import { busRequestDurationSeconds, busRequestTimeoutsTotal, currentLogContext, hostLogger, record, runWithLogContext, type LogContext } from '@pay/observability';

/**
 * What a bus request carries besides its message, so that the handler's log lines name the work that
 * caused them: in-process it is handed over with the message, over Kafka it travels in these headers.
 */
export interface MessageContext {
  requestId?: string;
  correlationId: string;
}

export const REQUEST_ID_HEADER = 'request-id';
export const CORRELATION_ID_HEADER = 'correlation-id';
/** Ids we make are short base62 with a prefix; a header that is not one is ignored, not logged. */
const ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** The caller's ids, to send with a request; a request made outside any work in hand starts a new chain. */
export function outgoingContext(): MessageContext {
  const context = currentLogContext();
  if (!context) return { correlationId: newId('correlation') };
  return context.requestId === undefined ? { correlationId: context.correlationId } : { requestId: context.requestId, correlationId: context.correlationId };
}

export const contextHeaders = (context: MessageContext): Record<string, string> =>
  context.requestId === undefined ? { [CORRELATION_ID_HEADER]: context.correlationId } : { [REQUEST_ID_HEADER]: context.requestId, [CORRELATION_ID_HEADER]: context.correlationId };

/** The context of a Kafka message from its headers (decoded to strings by Nest's parser). */
export function contextFromHeaders(headers: Record<string, unknown> | undefined): MessageContext {
  const requestId = headers?.[REQUEST_ID_HEADER];
  const correlationId = headers?.[CORRELATION_ID_HEADER];
  return {
    ...(isId(requestId) ? { requestId } : {}),
    correlationId: isId(correlationId) ? correlationId : newId('correlation'),
  };
}

const isId = (value: unknown): value is string => typeof value === 'string' && ID_SHAPE.test(value);

/**
 * Runs a handler in the request's log context (a new context object: the handler's notes do not
 * reach the caller's lines) and writes one debug line when it is done: topic, duration, outcome. An
 * unexpected error (not a ServiceError) is handed to `reportUnexpected` inside that context, so that
 * its log line names the request too.
 */
export async function handleInContext<T>(
  topic: RequestTopic,
  context: MessageContext,
  handle: () => Promise<T>,
  reportUnexpected?: (error: unknown) => void,
): Promise<T> {
  const logContext: LogContext = { ...context };
  return runWithLogContext(logContext, async () => {
    const startedAt = performance.now();
    let outcome = 'ok';
    try {
      return await handle();
    } catch (error) {
      outcome = error instanceof ServiceError ? error.code : 'internal_error';
      if (!(error instanceof ServiceError)) reportUnexpected?.(error);
      throw error;
    } finally {
      const logger = hostLogger();
      if (logger.isLevelEnabled('debug')) logger.debug({ context: 'bus', topic, outcome, duration_ms: Math.round((performance.now() - startedAt) * 100) / 100 }, 'bus message handled');
    }
  });
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
