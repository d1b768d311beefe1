import { AsyncLocalStorage } from 'node:async_hooks';
import { runOutsideTrace } from './tracing';

/**
 * What every log line written while handling one piece of work names: the HTTP request that caused
 * it (its Request-Id), the chain of work it belongs to, and the integrator once authenticated.
 */
export interface LogContext {
  /** The Request-Id of the HTTP request that caused the work, in every app the work reaches. */
  requestId?: string;
  /** One chain of work: the request id for work an HTTP request caused, a fresh id for background work. */
  correlationId: string;
  integratorId?: string;
}

/**
 * One store for the process: the HTTP edge enters it per request, the bus per message handled, so
 * the logger reads the ids from here instead of every call passing them along.
 */
const storage = new AsyncLocalStorage<LogContext>();

export const currentLogContext = (): LogContext | undefined => storage.getStore();

/** Runs `work` (and everything it starts) with `context` on its log lines. */
export const runWithLogContext = <T>(context: LogContext, work: () => T): T => storage.run(context, work);

/**
 * Runs `work` with no context: for background work that a request merely wakes (a dispatcher's pump, a
 * connection made on first use), whose later lines are not about that request, and whose spans are
 * not part of its trace either.
 */
export const runOutsideLogContext = <T>(work: () => T): T => storage.exit(() => runOutsideTrace(work));

/** Names the authenticated integrator on the lines still to come for the current request. */
export function noteIntegrator(integratorId: string): void {
  const context = storage.getStore();
  if (context) context.integratorId = integratorId;
}

/**
 * The fields of the current context as they appear on a log line (snake_case); none outside a context.
 * A new object every time: pino merges the line's own fields into it.
 */
export function logContextFields(): Record<string, string> {
  const context = storage.getStore();
  if (!context) return {};
  const fields: Record<string, string> = { correlation_id: context.correlationId };
  if (context.requestId !== undefined) fields['request_id'] = context.requestId;
  if (context.integratorId !== undefined) fields['integrator_id'] = context.integratorId;
  return fields;
}
