/**
 * Errors that say a dependency (PostgreSQL) cannot be reached or answered too late, rather than that the
 * request was wrong or the code is: the caller gets `503 service_unavailable` with Retry-After and may
 * try again, instead of a `500`.
 */
const OUTAGE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/** SQLSTATEs of an unreachable, restarting or overloaded server (class 08, 57P01-03, 53300) and a statement timeout. */
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** What node-postgres says when a connection breaks, or its own timeouts fire. */
const OUTAGE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'the database system is',
];

export function isOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (OUTAGE_ERRNOS.has(code) || OUTAGE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  if (typeof message === 'string' && OUTAGE_MESSAGES.some((known) => message.includes(known))) return true;
  // AggregateError of a connect to several addresses (localhost: ::1 and 127.0.0.1).
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isOutage);
}
