import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { webhooks, WebhookVerificationError } from '@pay/sdk';
import { AttemptRefusedError, type NewOrder, type Orders } from './orders';

export interface HandlerOptions {
  pool: Pool;
  orders: Orders;
  webhookSecret: string;
  /** How far webhook-timestamp may be from now (replays are refused). */
  toleranceSeconds: number;
  /** Called once a new event is stored. */
  onStored: () => void;
  log: (line: string) => void;
}

const MAX_BODY_BYTES = 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * `POST /webhooks`: verify, store, answer 2xx; nothing else (the worker processes). `/orders`: a stand-in
 * for the shop's own backend, to create orders and attempts by hand; loopback clients only.
 */
export function createHandler(options: HandlerOptions): RequestListener {
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://receiver').pathname;
    const route = path === '/webhooks' ? receiveWebhook : path.startsWith('/orders') ? ordersApi : undefined;
    if (!route) return reply(response, 404, { error: 'not found' });
    route(request, response, path, options).catch((error: unknown) => {
      options.log(`${request.method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) reply(response, 500, { error: 'internal error' });
    });
  };
}

async function receiveWebhook(request: IncomingMessage, response: ServerResponse, _path: string, options: HandlerOptions): Promise<void> {
  if (request.method !== 'POST') return reply(response, 405, { error: 'POST only' });
  // The signature covers the bytes as sent: read them as they are, never a re-serialized parse.
  const raw = await readBody(request);
  if (!raw) return reply(response, 413, { error: 'body too large' });
  let event;
  try {
    event = webhooks.verify(raw, request.headers, options.webhookSecret, { toleranceSeconds: options.toleranceSeconds });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    options.log(`refused a delivery: ${error.message}`); // rule 1: neither stored nor processed
    return reply(response, 400, { error: 'signature verification failed' });
  }
  if (typeof event.id !== 'string' || typeof event.type !== 'string') return reply(response, 400, { error: 'not an event' });
  // Rule 3: stored (committed) before the 2xx. Rule 2: an id already stored is acknowledged and nothing more.
  const stored = await options.pool.query('INSERT INTO received_events (id, type, body) VALUES ($1, $2, $3::jsonb) ON CONFLICT (id) DO NOTHING', [
    event.id,
    event.type,
    raw.toString('utf8'),
  ]);
  if (stored.rowCount === 1) {
    options.log(`stored ${event.id} ${event.type}`);
    options.onStored();
  } else {
    options.log(`duplicate ${event.id} ${event.type}: acknowledged, not processed again`);
  }
  reply(response, 200, { received: true });
}

async function ordersApi(request: IncomingMessage, response: ServerResponse, path: string, { orders }: HandlerOptions): Promise<void> {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) return reply(response, 403, { error: 'the orders API answers loopback clients only' });
  try {
    const [, , reference, sub] = path.split('/').map(decodeURIComponent); // /orders/{reference}/attempts
    if (request.method === 'POST' && !reference) {
      const body = await readBody(request);
      return reply(response, 201, await orders.create(JSON.parse(body?.toString('utf8') || '{}') as NewOrder));
    }
    if (request.method === 'POST' && reference && sub === 'attempts') return reply(response, 201, await orders.createAttempt(reference));
    if (request.method === 'GET' && reference && !sub) {
      const order = await orders.get(reference);
      return order ? reply(response, 200, order) : reply(response, 404, { error: `no order ${reference}` });
    }
    return reply(response, 404, { error: 'not found' });
  } catch (error) {
    if (error instanceof AttemptRefusedError) return reply(response, 409, { error: error.message });
    if (error instanceof TypeError || error instanceof SyntaxError || error instanceof URIError) return reply(response, 400, { error: error.message });
    throw error;
  }
}

/** The raw body, or undefined past MAX_BODY_BYTES (read to the end, so that the answer can be sent). */
const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });

const reply = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
