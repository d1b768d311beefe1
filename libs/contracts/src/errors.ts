import { named, object, oneOfValues, optional, string, type Static } from './schema';

/** Error codes of the contract (section 2) and their HTTP statuses. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_amount: 400,
  unsupported_currency: 400,
  currency_mismatch: 400,
  /** A payout above the connection's available balance: nothing moves. */
  insufficient_balance: 400,
  authentication_required: 401,
  connection_not_authorized: 403,
  beneficiary_not_authorized: 403,
  /** A valid key without the right to this route (a finance key on anything but the ledger's reads). */
  forbidden: 403,
  /** A restricted API key without the scope the route needs (the scope in `param`). */
  insufficient_scope: 403,
  resource_not_found: 404,
  invalid_status: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorBody = object({
  code: oneOfValues(ERROR_CODES),
  message: string({ description: 'For humans; never a stack trace.' }),
  param: optional(string({ description: 'The parameter at fault, when one is.' })),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** One request's outcome in a batch topic's reply: its reply, or the error it alone was refused with. */
export type BatchOutcome<Reply> = { reply: Reply } | { error: ErrorBody };

/** Every error answer (section 2): `{ "error": { "code", "message", "param"? } }`. */
export const ErrorResource = named('Error', object({ error: ErrorBody }, { description: 'Every error: its contract code, a message for humans, and the parameter at fault when one is.' }));
export type ErrorResource = Static<typeof ErrorResource>;

/** A broken rule, carrying its contract code. Crosses the bus as an ErrorBody. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    /** Overrides the code's usual status (413 for an oversized body). */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  toBody(): ErrorBody {
    return this.param === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, param: this.param };
  }

  static fromBody(body: ErrorBody): ServiceError {
    return new ServiceError(body.code, body.message, body.param);
  }
}

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && value in ERROR_STATUS;

export const notFound = (what: string, id: string): ServiceError => new ServiceError('resource_not_found', `no such ${what}: '${id}'`);
