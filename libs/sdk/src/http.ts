import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromResponse, PaymentsError } from './errors';
import { REQUEST_TIMEOUT_MS_DEFAULT, RETRIES_MAX_DEFAULT, RETRY_DELAY_MS_INITIAL_DEFAULT, RETRY_DELAY_MS_MAX_DEFAULT } from './limits';

export interface ClientOptions {
  /** Your integrator key, `sk_…`. */
  apiKey: string;
  /** The service's origin, e.g. `https://api.pay.example` (paths start with /v1). */
  baseUrl: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Bound on one attempt, in milliseconds (default 60 000). */
  timeoutMs?: number;
  /** First backoff delay (default 500 ms); doubles each retry, with jitter, up to maxRetryDelayMs. */
  initialRetryDelayMs?: number;
  /** Largest backoff delay and largest Retry-After honoured (default 20 000 ms). */
  maxRetryDelayMs?: number;
}

/** Options of one call. */
export interface RequestOptions {
  /** On creates: the Idempotency-Key to send (default: one generated for this call, reused on every retry). */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type Query = Record<string, string | number | Date | undefined>;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Query;
  body?: object;
  /** An XML document sent as is (`application/xml`), instead of a JSON body. */
  xmlBody?: string;
  /** The answer is a document (XML), answered as its text rather than parsed as JSON. */
  textAnswer?: boolean;
  /** A create: sends an Idempotency-Key (the caller's, or a generated one), the same on every retry. */
  idempotent?: boolean;
}

export const SDK_VERSION = '0.1.0';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
    // The listener goes with the timer: a caller's long-lived signal collects none.
    const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** fetch wraps the cause of a network failure: ECONNREFUSED means nothing was sent. */
const connectionRefused = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
};

/**
 * The transport: JSON over fetch, with the bearer key, Idempotency-Key on creates, and retries with
 * exponential backoff and full jitter on network errors, 429 (after Retry-After), 409
 * idempotency_key_in_use and 5xx. Other 4xx are never retried.
 *
 * A request is retried on a failure that may have had an effect (network error, 5xx) only when
 * repeating it is safe: a GET or DELETE, or a create carrying its Idempotency-Key. Other actions
 * (cancel, rotate_secret, test helpers, …) are retried only when the service certainly did nothing:
 * 429, or a connection refused.
 */
export class HttpClient {
  private readonly apiKey: string;
  private readonly baseUrl: string;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  private readonly initialRetryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.apiKey = options.apiKey;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? RETRIES_MAX_DEFAULT;
    this.timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT;
    this.initialRetryDelayMs = options.initialRetryDelayMs ?? RETRY_DELAY_MS_INITIAL_DEFAULT;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? RETRY_DELAY_MS_MAX_DEFAULT;
  }

  async request<T>(request: HttpRequest, options: RequestOptions = {}): Promise<T> {
    const url = this.url(request.path, request.query);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      Accept: 'application/json',
      'User-Agent': `pay-sdk-node/${SDK_VERSION}`,
    };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.xmlBody !== undefined) headers['Content-Type'] = 'application/xml';
    // One key per logical call, generated before the first attempt: every retry sends the same one.
    if (request.idempotent) headers['Idempotency-Key'] = options.idempotencyKey ?? `sdk-${randomUUID()}`;
    const body = request.xmlBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const repeatable = request.method !== 'POST' || request.idempotent === true;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
        response = await fetch(url, { method: request.method, headers, body, signal });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        const timedOut = (error as Error)?.name === 'TimeoutError';
        const failure = new ConnectionError({
          status: undefined,
          code: timedOut ? 'timeout' : 'connection_error',
          message: timedOut ? `${request.method} ${request.path}: no answer within ${timeoutMs} ms` : `${request.method} ${request.path}: ${(error as Error)?.message ?? 'connection failed'}`,
          cause: error,
        });
        if (attempt < maxRetries && (repeatable || connectionRefused(error))) {
          await sleep(this.backoff(attempt), options.signal);
          continue;
        }
        throw failure;
      }

      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.ok) {
        if (request.textAnswer) return text as T;
        if (parsed === undefined) {
          throw new PaymentsError({ status: response.status, code: 'invalid_response', message: 'the answer is not JSON', requestId: response.headers.get('request-id') ?? undefined, headers: response.headers });
        }
        return parsed as T;
      }
      const error = errorFromResponse(response.status, parsed, response.headers);
      const retryable =
        response.status === 429 ||
        (response.status === 409 && error.code === 'idempotency_key_in_use') ||
        (response.status >= 500 && repeatable);
      if (!retryable || attempt >= maxRetries) throw error;
      await sleep(this.delay(attempt, response.headers), options.signal);
    }
  }

  private url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      search.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Retry-After (seconds or an HTTP date) when the service sent it, else the backoff. */
  private delay(attempt: number, headers: Headers): number {
    const retryAfter = headers.get('retry-after');
    if (retryAfter !== null) {
      const seconds = /^\d+$/.test(retryAfter) ? Number(retryAfter) : (Date.parse(retryAfter) - Date.now()) / 1000;
      if (Number.isFinite(seconds)) return Math.min(Math.max(seconds * 1000, 0), this.maxRetryDelayMs);
    }
    return this.backoff(attempt);
  }

  /** Exponential backoff with jitter: uniform between a quarter and all of min(maxRetryDelayMs, initialRetryDelayMs * 2^attempt). */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxRetryDelayMs, this.initialRetryDelayMs * 2 ** attempt);
    return ceiling / 4 + Math.random() * ceiling * 0.75;
  }
}
