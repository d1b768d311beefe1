import { createHmac, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  WEBHOOK_DELIVERY_TIMEOUT_MS,
  WEBHOOK_ERROR_LENGTH_MAX,
  WEBHOOK_LOCATION_LENGTH_MAX,
  WEBHOOK_RESPONSE_READ_BYTES_MAX,
  WEBHOOK_SECRET_BYTES,
} from '@pay/kernel';
import { beginSpan, endSpan, SpanKind, tracingActive, type Attributes } from '@pay/observability';
import { OriginAgents } from './origin-agents';
import { AddressRefusedError, addressRefusal, checkUrlShape, guardedLookup, hostOf } from './url-guard';

const USER_AGENT = 'payments-webhooks/1';

export interface WebhookRequest {
  url: string;
  /** whsec_ + base64 key */
  secret: string;
  /** After a rotation, the previous secret: its signature is sent too, space-separated (Standard Webhooks). */
  previousSecret?: string;
  eventId: string;
  body: string;
  /** The body's UTF-8 bytes, when the caller already has them (built once per event, shared by its endpoints). */
  payload?: Buffer;
  sandbox: boolean;
  timeoutMs?: number;
  /** The REAL wall clock, never the sandbox clock: receivers check webhook-timestamp against theirs. */
  now?: () => Date;
}

export interface DeliveryResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The start of the response body (at most WEBHOOK_RESPONSE_READ_BYTES_MAX bytes), when a response arrived. */
  responseBodySnippet?: string;
}

type Outcome = Omit<DeliveryResult, 'latencyMs'>;

const failure = (error: string): Outcome => ({ ok: false, statusCode: null, error });

export const newWebhookSecret = (): string => `whsec_${randomBytes(WEBHOOK_SECRET_BYTES).toString('base64')}`;

const SECRET_PREFIX = 'whsec_';

/** Keep-alive connections per origin; every new one still goes through the guarded lookup. */
const agents = new OriginAgents(guardedLookup);

/** Closes the idle keep-alive connections (at shutdown). */
export const closeWebhookConnections = (): void => agents.close();

/**
 * One delivery attempt. Never throws: a refused address, DNS failure, refused connection, TLS error or
 * timeout each becomes a result with `error` set, for the retry schedule to act on. When tracing, a
 * client span `POST webhook` per attempt, naming the endpoint's host, the event and the status.
 */
export const sendWebhook = async (request: WebhookRequest): Promise<DeliveryResult> => {
  const attributes = attemptAttributes(request);
  const span = beginSpan('POST webhook', { kind: SpanKind.CLIENT, ...(attributes ? { attributes } : {}) });
  const result = await attempt(request);
  endSpan(span, { failed: !result.ok, attributes: outcomeAttributes(result) });
  return result;
};

/**
 * The endpoint's scheme, host and port, never its path or query (an integrator may put a token there),
 * nor the secret, the signature or the body.
 */
const attemptAttributes = (request: WebhookRequest): Attributes | undefined => {
  if (!tracingActive()) return undefined;
  const attributes: Attributes = { 'http.request.method': 'POST', 'pay.webhook.event_id': request.eventId };
  if (!URL.canParse(request.url)) return attributes;
  const url = new URL(request.url);
  return { ...attributes, 'url.scheme': url.protocol.replace(/:$/, ''), 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
};

/** The status when one arrived; otherwise the kind of failure (the error text may quote the receiver). */
const outcomeAttributes = (result: DeliveryResult): Attributes =>
  result.statusCode !== null
    ? { 'http.response.status_code': result.statusCode, ...(result.ok ? {} : { 'error.type': String(result.statusCode) }) }
    : { 'error.type': result.error === 'timeout' ? 'timeout' : 'request_failed' };

const attempt = async (request: WebhookRequest): Promise<DeliveryResult> => {
  const startedMs = performance.now();
  const finish = (outcome: Outcome): DeliveryResult => ({ ...outcome, latencyMs: Math.round(performance.now() - startedMs) });
  try {
    const target = checkTarget(request.url, request.sandbox);
    if (!target.ok) return finish(failure(target.message));
    const payload = request.payload ?? Buffer.from(request.body, 'utf8');
    const headers = signedHeaders(request, payload);
    return finish(await post(target.url, payload, headers, request.sandbox, request.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS));
  } catch (error) {
    return finish(failure(describeError(error)));
  }
};

/** Rechecked on every attempt: SANDBOX may have been turned off since the endpoint was registered. */
const checkTarget = (raw: string, sandbox: boolean): { ok: true; url: URL } | { ok: false; message: string } => {
  const shape = checkUrlShape(raw, { sandbox });
  if (!shape.ok) return shape;
  const host = hostOf(shape.url);
  // Host names are checked at connect time by guardedLookup; Node never calls lookup for IP literals.
  const refusal = isIP(host) ? addressRefusal(host, host, shape.loopback) : null;
  return refusal ? { ok: false, message: refusal } : shape;
};

const signedHeaders = (request: WebhookRequest, payload: Buffer): OutgoingHttpHeaders => {
  const timestampSeconds = Math.floor((request.now ?? (() => new Date()))().getTime() / 1000);
  // Sign the whole second that goes in the header, and the very bytes that go on the wire.
  const signedAt = new Date(timestampSeconds * 1000);
  const secrets = request.previousSecret === undefined ? [request.secret] : [request.secret, request.previousSecret];
  const signature = secrets.map((secret) => sign(secret, request.eventId, signedAt, payload)).join(' ');
  return {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    'user-agent': USER_AGENT,
    'webhook-id': request.eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
  };
};

/**
 * Standard Webhooks' v1 signature: base64 HMAC-SHA256, keyed by the secret's base64 part, of
 * `<id>.<unix seconds>.<body>`; the body's bytes are hashed as they are, never copied into one string.
 */
const sign = (secret: string, eventId: string, signedAt: Date, payload: Buffer): string => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error("Secret can't be empty.");
  const digest = createHmac('sha256', key).update(`${eventId}.${Math.floor(signedAt.getTime() / 1000)}.`).update(payload).digest('base64');
  return `v1,${digest}`;
};

const post = (url: URL, payload: Buffer, headers: OutgoingHttpHeaders, sandbox: boolean, timeoutMs: number): Promise<Outcome> =>
  new Promise<Outcome>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let bytesRead = 0;

    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A response read to its end leaves the socket to the agent for the next attempt; anything else
      // (an error, a timeout, a body past the limit) closes it.
      if (!(response?.complete && outcome.statusCode !== null)) req.destroy();
      resolve(outcome);
    };
    const settleWithResponse = (): void => settle(responseOutcome(response!, Buffer.concat(chunks).subarray(0, WEBHOOK_RESPONSE_READ_BYTES_MAX)));

    const transport = url.protocol === 'https:' ? https : http;
    // A kept-alive socket per origin: each new connection is made through the guarded lookup (the
    // agent's), and a reused one is connected to an address that lookup allowed.
    const req = transport.request(url, { method: 'POST', headers, agent: agents.agentFor(url, sandbox), lookup: guardedLookup(sandbox) }, (res) => {
      response = res;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytesRead += chunk.length;
        if (bytesRead >= WEBHOOK_RESPONSE_READ_BYTES_MAX) settleWithResponse();
      });
      res.on('end', settleWithResponse);
      res.on('error', settleWithResponse); // the status already arrived: a broken body does not change it
    });
    req.on('error', (error) => settle(failure(describeError(error))));
    // One budget for connect, request and response; once the status arrived, it decides and the body is cut.
    const timer = setTimeout(() => (response ? settleWithResponse() : settle(failure('timeout'))), timeoutMs);
    req.end(payload);
  });

const responseOutcome = (res: IncomingMessage, body: Buffer): Outcome => {
  const statusCode = res.statusCode ?? 0;
  const responseBodySnippet = body.toString('utf8');
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, error: null, responseBodySnippet };
  const error =
    statusCode >= 300 && statusCode < 400
      ? `redirect ${statusCode} not followed${res.headers.location ? ` (location ${res.headers.location.slice(0, WEBHOOK_LOCATION_LENGTH_MAX)})` : ''}`
      : `status ${statusCode}`;
  return { ok: false, statusCode, error, responseBodySnippet };
};

// EPROTO: OpenSSL failed on the socket (a plain-http server behind an https:// url, for one).
const TLS_ERROR = /^(EPROTO$|ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/;

// Duck-typed, not instanceof Error: errors raised by Node's core can come from another realm (jest's sandbox).
const describeError = (error: unknown): string => {
  if (error instanceof AddressRefusedError) return error.message;
  const { code = '', message: raw = String(error) } = (typeof error === 'object' && error !== null ? error : {}) as NodeJS.ErrnoException;
  const message = raw.replace(/\s+/g, ' ').trim().slice(0, WEBHOOK_ERROR_LENGTH_MAX);
  if (code === 'ECONNREFUSED') return `connection refused (${message})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed (${message})`;
  if (TLS_ERROR.test(code)) return `TLS error (${message})`;
  return `request failed (${message})`;
};
