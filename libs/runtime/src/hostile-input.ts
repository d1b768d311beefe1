import type { FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { ECHOED_VALUE_LENGTH_MAX, JSON_DEPTH_MAX, newId, PATH_PARAM_LENGTH_MAX } from '@pay/kernel';
import { firstDuplicateKey } from './json-duplicate-keys';

/**
 * What the HTTP edge refuses before any service sees a request: JSON nested too deep, strings that
 * PostgreSQL cannot store (NUL, unpaired UTF-16 surrogates), and path ids that cannot exist.
 */

/** True when `text`, read as JSON, opens more than `max` arrays/objects inside each other. */
export function jsonNestingExceeds(text: string, max: number = JSON_DEPTH_MAX): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** NUL, or a UTF-16 surrogate without its pair: neither can be stored as PostgreSQL text. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value);

/** The path of the first string (key or value) in a parsed JSON value that cannot be stored, if any. */
export function findUnstorableString(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, path: `${path}[${index}]` }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const itemPath = path === '' ? key : `${path}.${key}`;
        if (!isStorableText(key)) return itemPath;
        pending.push({ value: item, path: itemPath });
      }
    }
  }
  return undefined;
}

const unstorable = (where: string, param?: string): ServiceError =>
  new ServiceError('invalid_request', `${where} contains a NUL character or an unpaired UTF-16 surrogate`, param);

/** Parses a JSON body as the edge allows it: bounded nesting, only storable strings. */
export function parseJsonBody(text: string, parse: (text: string) => unknown): unknown {
  if (jsonNestingExceeds(text)) throw new ServiceError('invalid_request', `the JSON body is nested deeper than ${JSON_DEPTH_MAX} levels`);
  const body = parse(text);
  const repeated = firstDuplicateKey(text);
  if (repeated !== undefined) throw new ServiceError('invalid_request', `the JSON body names ${printable(repeated)} twice in one object: send each parameter once`, printable(repeated));
  const path = findUnstorableString(body);
  if (path !== undefined) throw unstorable(path === '' ? 'the body' : path, path === '' ? undefined : path.split(/[.[]/)[0]);
  return body;
}

/** The media types the API reads: JSON, and the hosted pages' forms. */
const READ_MEDIA_TYPES = /^\s*application\/(json|x-www-form-urlencoded)\s*(;|$)/i;
/** `charset=…` of a Content-Type header, unquoted and lower-cased. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * A body the API would misread is refused by name (415): a Content-Encoding (compression is not read,
 * and a plain body labelled compressed is not taken as plain), or a charset other than UTF-8.
 */
export function bodyEncodingError(request: FastifyRequest): ServiceError | undefined {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return new ServiceError('invalid_request', `Content-Encoding ${printable(encoding)} is not supported: send the body uncompressed, without Content-Encoding`, undefined, 415);
  }
  const contentType = request.headers['content-type'] ?? '';
  // Another media type is refused as not JSON (400), whatever its charset.
  if (!READ_MEDIA_TYPES.test(contentType)) return undefined;
  return charsetError(contentType);
}

/** A `charset=` other than UTF-8 in a Content-Type the route reads, refused by name (415). */
export function charsetError(contentType: string): ServiceError | undefined {
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return new ServiceError('invalid_request', `charset=${printable(charset)} is not supported: send the body in UTF-8 (charset=utf-8)`, undefined, 415);
  }
  return undefined;
}

/** The methods whose body Fastify reads (GET, HEAD and TRACE have none). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

export const NOT_JSON_MESSAGE = 'the request body must be JSON, sent with Content-Type: application/json';

/**
 * A Content-Type the API does not read, on a request whose body would be parsed: `readable` names
 * the other media types the route takes (the statement route's XML), `refusal` a more precise error.
 */
export function unreadMediaTypeError(
  request: FastifyRequest,
  readable: (contentType: string) => boolean,
  refusal: (contentType: string) => ServiceError | undefined = () => undefined,
): ServiceError | undefined {
  if (BODYLESS_METHODS.has(request.method)) return undefined;
  const contentType = request.headers['content-type'];
  if (contentType === undefined) {
    // A body without a Content-Type (no body at all is fine).
    const hasBody = request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';
    return hasBody ? new ServiceError('invalid_request', NOT_JSON_MESSAGE) : undefined;
  }
  if (READ_MEDIA_TYPES.test(contentType) || readable(contentType)) return undefined;
  return refusal(contentType) ?? new ServiceError('invalid_request', NOT_JSON_MESSAGE);
}

/**
 * The id prefix of the object named by the path parameter that follows a collection's segment
 * (`/v1/payments/:id`, `/v1/test_helpers/payments/:id/...`, `/hosted/payments/:id`).
 */
const ID_PREFIX_BY_SEGMENT: Readonly<Record<string, string>> = {
  payments: 'pay',
  cash_payments: 'cpay',
  supplier_payments: 'spay',
  collections: 'col',
  beneficiaries: 'ben',
  webhook_endpoints: 'we',
  events: 'evt',
  refunds: 're',
  bank_accounts: 'ba',
  payouts: 'po',
  payout_batches: 'pob',
  balance_transactions: 'txn',
  integrators: 'int',
  api_keys: 'key',
};

/** Any path parameter: the characters of our ids and account names (`platform:fees:DZD`, `cp_…:DZD`). */
const PATH_PARAM = new RegExp(`^[A-Za-z0-9_:.-]{1,${PATH_PARAM_LENGTH_MAX}}$`);

/** The id pattern of each collection's path parameter, compiled once (not per request). */
const ID_PATTERN_BY_SEGMENT: ReadonlyMap<string, RegExp> = new Map(
  Object.entries(ID_PREFIX_BY_SEGMENT).map(([segment, prefix]) => [segment, new RegExp(`^${prefix}_[A-Za-z0-9]{1,${PATH_PARAM_LENGTH_MAX - prefix.length - 1}}$`)]),
);

/**
 * Routes whose shape errors are raised inside the route rather than here: those that take a key (the
 * API and the admin API) or a session (the console), after the key or session is checked, the
 * console's then its own pages; the hosted pages, whose route answers an error as a page (a customer
 * never sees JSON).
 */
const DEFERRED_ROUTE = /^\/(v1|admin\/v1|console|hosted)(\/|$)/;

/** A request's shape error, held until the route's guards have run (section 2: authentication comes first). */
const deferredShapeErrors = new WeakMap<FastifyRequest, ServiceError>();
/** A request's body error (not JSON, unreadable), held the same way; the first one found stands. */
const deferredBodyErrors = new WeakMap<FastifyRequest, ServiceError>();

/**
 * Holds a body's error for the route to answer after its guards (authentication, then body shape), on
 * the routes that defer; false on any other, which answers it at once.
 */
export function deferBodyError(request: FastifyRequest, error: ServiceError): boolean {
  if (!DEFERRED_ROUTE.test(request.routeOptions.url ?? '')) return false;
  if (!deferredBodyErrors.has(request)) deferredBodyErrors.set(request, error);
  return true;
}

/**
 * Refuses a path parameter that cannot name anything (wrong prefix for its collection, characters no
 * id has, too long) as 404, and a query that is not valid percent-encoded UTF-8 or cannot be stored as
 * 400, before the handler runs; on an authenticated route after its key is checked, and on a hosted
 * page by its route's error pages (`shapeErrorOf`).
 */
export async function checkRequestShape(request: FastifyRequest): Promise<void> {
  const error = shapeError(request);
  if (error === undefined) return;
  if (!DEFERRED_ROUTE.test(request.routeOptions.url ?? '')) throw error;
  deferredShapeErrors.set(request, error);
}

/** The shape error checkRequestShape held for the route (the path and query first, then the body), if any. */
export const shapeErrorOf = (request: FastifyRequest): ServiceError | undefined => deferredShapeErrors.get(request) ?? deferredBodyErrors.get(request);

function shapeError(request: FastifyRequest): ServiceError | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const route = request.routeOptions.url ?? '';
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string' || name === '*') continue; // a wildcard route (static files, not found) checks its own
    if (!isStorableText(value)) return unstorable('the path');
    const expected = ID_PATTERN_BY_SEGMENT.get(segmentBefore(route, name) ?? '') ?? PATH_PARAM;
    if (!expected.test(value)) return new ServiceError('resource_not_found', `no such object: '${printable(value)}'`);
  }
  const badlyEncoded = badlyEncodedQueryPart(request.url);
  if (badlyEncoded !== undefined) return new ServiceError('invalid_request', `the query string is not valid percent-encoded UTF-8: '${printable(badlyEncoded)}'`);
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (!isStorableText(name) || values.some((v) => typeof v === 'string' && !isStorableText(v))) return unstorable(`the query parameter ${printable(name)}`, printable(name));
  }
  return undefined;
}

/**
 * The first name or value of the raw query string that does not decode (`%ZZ`, a lone `%`, `%FF` that is
 * no UTF-8): Fastify's parser would pass it on as is, or as U+FFFD, and a filter would match nothing.
 */
function badlyEncodedQueryPart(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    for (const part of pair.split('=')) {
      try {
        decodeURIComponent(part);
      } catch {
        return part;
      }
    }
  }
  return undefined;
}

/** The static segment right before `:name` in a route pattern, e.g. `payments` in `/v1/payments/:id/cancel`. */
const segmentBefore = (route: string, name: string): string | undefined => {
  const segments = route.split('/');
  const index = segments.indexOf(`:${name}`);
  return index > 0 ? segments[index - 1] : undefined;
};

/** A value echoed in a message: bounded, and only characters that print. */
const printable = (value: string): string => value.slice(0, ECHOED_VALUE_LENGTH_MAX).replace(/[^\x20-\x7e]/g, '?');

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line or header,
 * headers over the size limit, a request not received in time): answered in the contract's shape with
 * a Request-Id, not Fastify's own `{statusCode, error, message}`, and the connection closed (its
 * framing can no longer be trusted; without `Connection: close` a client would send its next request
 * on a socket about to be destroyed).
 */
export function clientErrors(error: Error & { code?: string }, socket: { destroyed: boolean; writable: boolean; write(data: string): unknown; destroy(error?: Error): unknown }): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request line and headers are larger than the service accepts']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request was not received in time']
        : [400, 'Bad Request', 'the request is not valid HTTP/1.1'];
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nRequest-Id: ${newId('request')}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** HTTP/1.1 requires a Host header (RFC 9112 3.2): checked here, so that its 400 has the contract's shape (Node's own has no body). */
export function requireHost(request: { raw: { httpVersion: string }; headers: Record<string, unknown> }): void {
  if (request.raw.httpVersion === '1.1' && request.headers['host'] === undefined) throw new ServiceError('invalid_request', 'the Host header is required (HTTP/1.1)', 'Host');
}

/**
 * Errors Fastify raises before routing (a URL that is not valid percent-encoding, a bad route
 * constraint), answered in the contract's shape with a Request-Id like every other response.
 */
export function frameworkErrors(error: Error & { code?: string }, request: { id: string }, reply: { header(name: string, value: string): unknown; code(status: number): { send(body: unknown): unknown } }): void {
  const message = error.code === 'FST_ERR_BAD_URL' ? 'the request path is not valid percent-encoding' : 'the request could not be routed';
  reply.header('Request-Id', request.id);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.code(400).send({ error: { code: 'invalid_request', message } });
}
