import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_TIMESTAMP_DIGITS_MAX, WEBHOOK_TOLERANCE_SECONDS_DEFAULT } from './limits';
import type { Event } from './types';

/**
 * Standard Webhooks verification, with node:crypto only: `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256>` (two during a secret rotation), keyed with the
 * base64-decoded part of the secret after `whsec_`, over `webhook-id + "." + webhook-timestamp + "." + body`.
 *
 * The signature covers the exact bytes sent: verify the raw body as received, before any JSON parser.
 * A body that was parsed and serialized again may differ (spacing, key order, escapes, numbers) and is refused.
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Node's IncomingHttpHeaders, a fetch Headers, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** Now, for tests (default Date.now()). */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';
const TIMESTAMP = new RegExp(`^\\d{1,${WEBHOOK_TIMESTAMP_DIGITS_MAX}}$`);

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret === '') throw new WebhookVerificationError('the endpoint secret is required (whsec_…)');
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('the endpoint secret is not a whsec_ secret');
  return key;
}

function bodyBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new WebhookVerificationError(
    'rawBody must be the raw request body as received (a string or a Buffer), not a parsed object: keep the raw body (express.raw, rawBody: true, …) and verify it before parsing',
  );
}

/** `v1,<base64>` of HMAC-SHA256 over `id.timestamp.body`. */
export function sign(rawBody: string | Buffer, id: string, timestamp: number, secret: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(bodyBytes(rawBody)).digest('base64');
  return `v1,${mac}`;
}

/**
 * The event of a delivery, once its signature and timestamp are checked; otherwise throws
 * WebhookVerificationError. `secret` may be several (e.g. the old and the new while you deploy a rotation).
 */
export function verify<D = Record<string, unknown>>(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  { toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS_DEFAULT, now = new Date() }: VerifyOptions = {},
): Event<D> {
  const body = bodyBytes(rawBody);
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!TIMESTAMP.test(timestampHeader)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const timestamp = Number(timestampHeader);
  const skew = Math.abs(now.getTime() / 1000 - timestamp);
  if (skew > toleranceSeconds) throw new WebhookVerificationError(`webhook-timestamp is ${Math.round(skew)} s away from now (tolerance ${toleranceSeconds} s): refused as stale or replayed`);

  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new WebhookVerificationError('the endpoint secret is required (whsec_…)');
  // Compared as base64 text: decoding the given signature first would skip any character that is not base64.
  const expected = secrets.map((s) => Buffer.from(createHmac('sha256', secretKey(s)).update(`${id}.${timestamp}.`).update(body).digest('base64')));
  const matches = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .some((part) => {
      const given = Buffer.from(part.slice(3));
      return expected.some((mac) => mac.length === given.length && timingSafeEqual(mac, given));
    });
  if (!matches) throw new WebhookVerificationError('no signature matches: wrong secret, or the body is not the raw body as sent');

  try {
    return JSON.parse(body.toString('utf8')) as Event<D>;
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
}

/** Signature verification of webhook deliveries (also reachable as `client.webhooks`). */
export const webhooks = { verify, sign };
