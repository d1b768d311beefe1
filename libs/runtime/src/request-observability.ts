import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  beginSpan,
  child,
  contextFromTraceHeaders,
  endSpan,
  httpRequestDurationSeconds,
  httpRequestsTotal,
  record,
  runInSpan,
  runWithLogContext,
  SpanKind,
  tracingActive,
  type LogContext,
  type Span,
} from '@pay/observability';

/** The label of requests no route matched: their paths are the client's, unbounded, so never a label. */
export const UNMATCHED_ROUTE = 'unmatched';
/** Probes and scrapes arrive every few seconds: their request lines are debug, not info. */
const PROBE_ROUTES = new Set(['/health', '/ready', '/metrics']);
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Each request's log context, kept for its request line (hooks after body parsing may run outside it). */
const contexts = new WeakMap<FastifyRequest, LogContext>();
/** Each request's server span, when tracing: ended with the request line. */
const spans = new WeakMap<FastifyRequest, Span>();

/**
 * Per request: a log context carrying its Request-Id (Fastify's request id, the one the Request-Id
 * header answers), entered for everything the request runs; when tracing, a server span
 * (`METHOD /route/:pattern`, continuing the caller's `traceparent`) active for the same; and when it
 * is answered, one log line, the HTTP metrics and the span's end. Registered before any other hook, so
 * that every hook runs inside the context.
 */
export function observeRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    // An HTTP request starts its own chain of work: its correlation id is its request id.
    const context: LogContext = { requestId: request.id, correlationId: request.id };
    contexts.set(request, context);
    // Probes and scrapes arrive every few seconds from the orchestrator and Prometheus: not traced.
    const span = tracingActive() && !PROBE_ROUTES.has(routeOf(request)) ? beginServerSpan(request) : undefined;
    if (span) spans.set(request, span);
    runWithLogContext(context, () => runInSpan(span, done));
  });
  // The body is read on the socket's callbacks, outside the context entered above: the handler gets it again.
  fastify.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const context = contexts.get(request);
    if (context) runWithLogContext(context, () => runInSpan(spans.get(request), done));
    else done();
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    logAndCount(logger, request, reply);
    done();
  });
}

const routeOf = (request: FastifyRequest): string => (request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE));
const methodOf = (request: FastifyRequest): string => (KNOWN_METHODS.has(request.method) ? request.method : 'OTHER');

/** Named by the route pattern, never the path (ids, a client's arbitrary text); no header, query or body. */
function beginServerSpan(request: FastifyRequest): Span | undefined {
  const method = methodOf(request);
  const route = routeOf(request);
  return beginSpan(`${method} ${route}`, {
    kind: SpanKind.SERVER,
    parent: contextFromTraceHeaders(request.headers),
    attributes: { 'http.request.method': method, 'http.route': route, 'pay.request_id': request.id },
  });
}

function logAndCount(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const route = routeOf(request);
  const method = methodOf(request);
  const status = reply.statusCode;
  const durationMs = reply.elapsedTime;
  record(() => {
    child(httpRequestsTotal, route, method, String(status)).inc();
    child(httpRequestDurationSeconds, route, method).observe(durationMs / 1000);
  });
  endSpan(spans.get(request), { failed: status >= 500, attributes: { 'http.response.status_code': status } });
  const context = contexts.get(request);
  const level = status >= 500 ? 'error' : PROBE_ROUTES.has(route) ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  // The ids are named here, not left to the log context: this hook may run outside it.
  logger[level](
    {
      request_id: request.id,
      correlation_id: context?.correlationId ?? request.id,
      ...(context?.integratorId === undefined ? {} : { integrator_id: context.integratorId }),
      method,
      route,
      status,
      duration_ms: Math.round(durationMs * 100) / 100,
    },
    'request completed',
  );
}
