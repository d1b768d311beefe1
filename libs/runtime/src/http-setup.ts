import { type ArgumentsHost, type CallHandler, Catch, type ExceptionFilter, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import secureJson from 'secure-json-parse';
import { ServiceError } from '@pay/contracts';
import {
  BODY_LIMIT_BYTES,
  CONSOLE_STATEMENT_FORM_BODY_LIMIT_BYTES,
  FORM_BODY_LIMIT_BYTES,
  STATEMENT_BODY_LIMIT_BYTES,
  HTTP_KEEP_ALIVE_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
  newId,
  RETRY_AFTER_RATE_LIMITED_SECONDS,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
} from '@pay/kernel';
import { toErrorResponse } from './error-response';
import { bodyEncodingError, charsetError, checkRequestShape, clientErrors, deferBodyError, frameworkErrors, NOT_JSON_MESSAGE, parseJsonBody, requireHost, shapeErrorOf, unreadMediaTypeError } from './hostile-input';
import { observeRequests } from './request-observability';

export const fastifyOptions = {
  bodyLimit: BODY_LIMIT_BYTES,
  genReqId: () => newId('request'),
  logger: false,
  keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
  requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
  // Errors raised before routing (a path that is not valid percent-encoding) in the contract's shape.
  frameworkErrors,
  // Requests Node's HTTP parser refuses (malformed, headers too large) in the contract's shape too.
  clientErrorHandler: clientErrors,
  // Node answers a missing Host with an empty 400 of its own; requireHost answers it in the contract's shape.
  http: { requireHostHeader: false },
  // A request that reaches a closing server (on a connection accepted just before the stop) is served,
  // with `Connection: close`: the apps behind it stop only once the server has closed.
  // Fastify's own answer would be a 503 outside the contract's shape, for work this process can still do.
  return503OnClosing: false,
} as const;

const TEST_HELPERS_PATH = /^\/v1\/test_helpers(\/|\?|$)/;

@Catch()
export class ContractErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = toErrorResponse(error);
    // Fastify's fallback 404 (a method no route has, on a path it cannot decode) skips the onRequest hooks.
    if (!reply.hasHeader('Request-Id')) void reply.header('Request-Id', request.id);
    void reply.header('X-Content-Type-Options', 'nosniff');
    if (status === 404 && body.error.message === 'no such route' && TEST_HELPERS_PATH.test(request.url)) {
      body.error.message = 'no such route: the test helpers exist only when the service runs with SANDBOX=true';
    }
    // The contract's 429 carries Retry-After; a 503 says when to try again too.
    if ((status === 429 || status === 503) && !reply.hasHeader('Retry-After')) {
      void reply.header('Retry-After', String(status === 429 ? RETRY_AFTER_RATE_LIMITED_SECONDS : RETRY_AFTER_UNAVAILABLE_SECONDS));
    }
    void reply.status(status).send(body);
  }
}

/**
 * Runs after the guards: a path id that cannot exist, a bad query or a body that is not JSON (or cannot
 * be read) on an authenticated route is answered once the key and its scope have been checked
 * (authentication comes first, then the body's shape: contract section 2); on a hosted page, inside its
 * route, whose error filter answers it as a page.
 */
export class ShapeErrorAfterAuthentication implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const error = context.getType() === 'http' ? shapeErrorOf(context.switchToHttp().getRequest<FastifyRequest>()) : undefined;
    if (error) throw error;
    return next.handle();
  }
}

/**
 * Request-Id on every response; a log line and metrics per request (first, so that every hook runs in
 * the request's log context); JSON bodies parsed safely (no prototype pollution, bounded nesting, only
 * storable strings), path and query checked at the edge, errors in the contract's shape.
 */
export function configureHttp(app: NestFastifyApplication, logger: Logger): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  observeRequests(fastify, logger);
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('Request-Id', request.id);
    // No browser reads a JSON answer (or any other) as something else.
    void reply.header('X-Content-Type-Options', 'nosniff');
    requireHost(request);
  });
  // Before a byte of the body is read: an encoding or charset the parsers would misread, a media type
  // no parser reads. On a route with a key or a session it is answered after the guards, the body unread.
  fastify.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    const contentType = String(request.headers['content-type'] ?? '');
    const error =
      bodyEncodingError(request) ??
      (isXmlOnStatementRoute(request, contentType) ? charsetError(contentType) : undefined) ??
      unreadMediaTypeError(request, (type) => isXmlOnStatementRoute(request, type), xmlElsewhereError);
    if (error === undefined) return payload;
    if (!deferBodyError(request, error)) throw error;
    // The unread body's parser takes it, reading nothing; the connection ends with the answer, so what
    // the client still sends is never read.
    request.headers['content-type'] = UNREAD_BODY_MEDIA_TYPE;
    void reply.header('Connection', 'close');
    return payload;
  });
  // JSON (and forms, below) only: any other media type is refused as not JSON.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(UNREAD_BODY_MEDIA_TYPE, (_request, _payload, done) => done(null, undefined));
  // A Content-Type the check above let through that still names no parser: not JSON, answered as above.
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    const error = new ServiceError('invalid_request', NOT_JSON_MESSAGE);
    if (!deferBodyError(request, error)) return done(error, undefined);
    done(null, undefined);
  });
  // HTML forms of the hosted pages and the console. Parsed as URLSearchParams, never a plain object, so
  // the JSON API still refuses such a body as "not a JSON object".
  limitForms(fastify);
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: CONSOLE_STATEMENT_FORM_BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = String(body);
    const limit = formLimitOf(request);
    if (Buffer.byteLength(text) > limit) return done(formTooLarge(limit), undefined);
    done(null, new URLSearchParams(text));
  });
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = parseJsonBody(text, (json) => secureJson.parse(json, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (caught) {
      const error = caught instanceof ServiceError ? caught : new ServiceError('invalid_request', 'the request body is not valid JSON (keys such as __proto__ are refused)');
      // Answered after the guards where the route has them (authentication, then the body's shape).
      return deferBodyError(request, error) ? done(null, undefined) : done(error, undefined);
    }
    done(null, parsed);
  });
  acceptXmlOnStatementRoute(fastify);
  endConnectionsOnceClosing(fastify);
  // Path ids that cannot exist and query values that cannot be stored never reach a handler.
  fastify.addHook('preValidation', checkRequestShape);
  app.useGlobalInterceptors(new ShapeErrorAfterAuthentication());
  app.useGlobalFilters(new ContractErrorFilter());
}

/** The one route that takes XML: a bank's statement (camt.053), up to 10 MB. */
export const XML_BODY_ROUTE = { method: 'POST', url: '/admin/v1/bank_statements' } as const;
const XML_MEDIA_TYPE = /^\s*(application|text)\/xml\s*(;|$)/i;
const isXmlOnStatementRoute = (request: FastifyRequest, contentType: string): boolean =>
  XML_MEDIA_TYPE.test(contentType) && request.method === XML_BODY_ROUTE.method && request.routeOptions.url === XML_BODY_ROUTE.url;

const xmlElsewhereError = (contentType: string): ServiceError | undefined =>
  XML_MEDIA_TYPE.test(contentType)
    ? new ServiceError('invalid_request', `${NOT_JSON_MESSAGE} (XML is accepted by ${XML_BODY_ROUTE.method} ${XML_BODY_ROUTE.url} only)`)
    : undefined;

/** The media type a body refused unread is given, so that no parser reads it (the error is held for the route). */
const UNREAD_BODY_MEDIA_TYPE = 'application/x-unread-body';

/**
 * XML bodies are accepted on XML_BODY_ROUTE only, and there up to STATEMENT_BODY_LIMIT_BYTES: any other
 * route refuses one before reading it. The body reaches the handler as the raw text (parsed there, with
 * entities off and a DOCTYPE refused).
 */
function acceptXmlOnStatementRoute(fastify: FastifyInstance): void {
  // XML elsewhere is refused by the first preParsing hook (unreadMediaTypeError).
  fastify.addHook('preParsing', async (request: FastifyRequest) => {
    if (!isXmlOnStatementRoute(request, String(request.headers['content-type'] ?? ''))) return;
    if (Number(request.headers['content-length'] ?? 0) > STATEMENT_BODY_LIMIT_BYTES) throw statementTooLarge();
  });
  // Read as bytes, not as a string: Fastify decodes a string with replacement characters and then
  // refuses the body as not its Content-Length, an answer that names no encoding.
  fastify.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer', bodyLimit: STATEMENT_BODY_LIMIT_BYTES }, (request, body, done) => {
    let text: string;
    try {
      text = utf8Statement(body as Buffer);
    } catch (error) {
      // Answered after the admin key is checked, as a JSON body's errors are.
      return deferBodyError(request, error as ServiceError) ? done(null, undefined) : done(error as ServiceError, undefined);
    }
    done(null, text);
  });
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A statement's bytes as text: UTF-8 only (a leading byte order mark is dropped). UTF-16, known by its
 * byte order mark or by `<` beside a zero byte, and any other bytes that are not UTF-8 are refused by
 * name.
 */
function utf8Statement(bytes: Buffer): string {
  const [first, second] = [bytes[0], bytes[1]];
  if ((first === 0xfe && second === 0xff) || (first === 0xff && second === 0xfe) || (first === 0x00 && second === 0x3c) || (first === 0x3c && second === 0x00)) {
    throw new ServiceError('invalid_request', 'the statement is encoded in UTF-16: send it in UTF-8');
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ServiceError('invalid_request', 'the statement is not valid UTF-8 (ISO-8859-1 or another encoding?): send it in UTF-8');
  }
}

/** The one form allowed above FORM_BODY_LIMIT_BYTES: the console's statement, pasted as XML. */
export const LARGE_FORM_ROUTE = { method: 'POST', url: '/console/finance/payouts/statements' } as const;
const FORM_MEDIA_TYPE = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i;

const formLimitOf = (request: FastifyRequest): number =>
  request.method === LARGE_FORM_ROUTE.method && request.routeOptions.url === LARGE_FORM_ROUTE.url ? CONSOLE_STATEMENT_FORM_BODY_LIMIT_BYTES : FORM_BODY_LIMIT_BYTES;
const formTooLarge = (bytes: number): ServiceError =>
  new ServiceError('invalid_request', `the form is larger than ${bytes / 1024} KB (${bytes.toLocaleString('en-US')} bytes)`, undefined, 413);

/**
 * A form is refused past its route's limit before its body is read, when it says its length (the
 * parser, whose own bound is the largest form's, checks the others once read).
 */
function limitForms(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', async (request: FastifyRequest) => {
    if (!FORM_MEDIA_TYPE.test(String(request.headers['content-type'] ?? ''))) return;
    const limit = formLimitOf(request);
    if (Number(request.headers['content-length'] ?? 0) > limit) throw formTooLarge(limit);
  });
}

const statementTooLarge = (): ServiceError => new ServiceError('invalid_request', 'the statement is larger than 10 MB (10,485,760 bytes)', undefined, 413);

/**
 * Once close has begun, every response ends its connection (`Connection: close`), those of requests
 * already in flight too: a keep-alive client (a load balancer's pool) holding one open would otherwise
 * keep the server, and so the process, from stopping until its idle timeout.
 */
function endConnectionsOnceClosing(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('Connection', 'close');
    done(null, payload);
  });
}
