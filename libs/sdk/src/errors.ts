/** The error codes the API answers (`{error: {code, message, param?}}`). */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_amount'
  | 'unsupported_currency'
  | 'currency_mismatch'
  | 'insufficient_balance'
  | 'authentication_required'
  | 'connection_not_authorized'
  | 'beneficiary_not_authorized'
  | 'forbidden'
  | 'insufficient_scope'
  | 'resource_not_found'
  | 'invalid_status'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';

/** Codes the SDK gives errors that never reached an answer of the API. */
export type ClientErrorCode = 'connection_error' | 'timeout' | 'invalid_response';

export interface PaymentsErrorInit {
  /** HTTP status; undefined when no answer arrived (connection error, timeout). */
  status: number | undefined;
  code: ErrorCode | ClientErrorCode | (string & {});
  message: string;
  param?: string;
  requestId?: string;
  headers?: Headers;
  cause?: unknown;
}

/**
 * Every failure of a call: `status`, `code`, `message`, `param` (the parameter at fault, when one is),
 * and `requestId` (the `Request-Id` header, to quote to support). Subclasses by family of code;
 * `code` discriminates within a family.
 */
export class PaymentsError extends Error {
  readonly status: number | undefined;
  readonly code: PaymentsErrorInit['code'];
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;

  constructor(init: PaymentsErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 400 / 413: invalid_request, invalid_amount, unsupported_currency, currency_mismatch, insufficient_balance (a payout above the available balance). */
export class InvalidRequestError extends PaymentsError {}
/** 401 authentication_required. */
export class AuthenticationError extends PaymentsError {}
/** 403: connection_not_authorized, beneficiary_not_authorized, forbidden, insufficient_scope (the missing scope in `param`). */
export class PermissionError extends PaymentsError {}
/** 404 resource_not_found. */
export class NotFoundError extends PaymentsError {}
/** 409 invalid_status: the operation is not allowed in the object's current status. */
export class InvalidStatusError extends PaymentsError {}
/** 409 idempotency_key_reused (another body or endpoint) or idempotency_key_in_use (still running; retried). */
export class IdempotencyError extends PaymentsError {}
/** 429 rate_limited; `retryAfterSeconds` from the Retry-After header. */
export class RateLimitError extends PaymentsError {
  get retryAfterSeconds(): number | undefined {
    const value = this.headers?.get('retry-after');
    return value == null || !/^\d+$/.test(value) ? undefined : Number(value);
  }
}
/** 5xx: internal_error, service_unavailable. */
export class ApiError extends PaymentsError {}
/** No answer: the connection failed, or the call timed out (`code` connection_error or timeout). */
export class ConnectionError extends PaymentsError {}

/** The error of an answer whose status is not 2xx. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): PaymentsError {
  const error = (typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined) as
    | { code?: unknown; message?: unknown; param?: unknown }
    | undefined;
  const code = typeof error?.code === 'string' ? error.code : status >= 500 ? 'internal_error' : 'invalid_response';
  const init: PaymentsErrorInit = {
    status,
    code,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${status}`,
    ...(typeof error?.param === 'string' ? { param: error.param } : {}),
    ...(headers.get('request-id') ? { requestId: headers.get('request-id')! } : {}),
    headers,
  };
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return code.startsWith('idempotency_key') ? new IdempotencyError(init) : new InvalidStatusError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ApiError(init);
  if (status === 400 || status === 413) return new InvalidRequestError(init);
  return new PaymentsError(init);
}
