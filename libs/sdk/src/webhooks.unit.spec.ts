import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { Payments, webhooks, WebhookVerificationError } from './index';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The delivery as the service would send it, but pretty-printed and with an escaped character, so
 * that parsing it and serializing it again yields other bytes (as Express's json() + JSON.stringify would).
 */
const RAW_BODY = JSON.stringify(
  { id: 'evt_1', object: 'event', type: 'payment.succeeded', created_at: '2026-11-22T10:00:00.000Z', data: { id: 'pay_1', object: 'payment', order_reference: 'caf\u00e9' } },
  null,
  2,
).replace('café', 'caf\\u00e9');

/** A receiver on loopback that keeps the raw body and headers of what it is sent. */
async function receive(send: (url: string) => Promise<void>): Promise<{ body: Buffer; headers: IncomingHttpHeaders }> {
  let resolveReceived!: (value: { body: Buffer; headers: IncomingHttpHeaders }) => void;
  const received = new Promise<{ body: Buffer; headers: IncomingHttpHeaders }>((resolve) => (resolveReceived = resolve));
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      resolveReceived({ body: Buffer.concat(chunks), headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await send(`http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`);
    return await received;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Delivers RAW_BODY over real HTTP, signed with each of `secrets` as the service signs (Standard Webhooks). */
async function deliver(secrets: string[], { timestamp = Math.floor(Date.now() / 1000), body = RAW_BODY } = {}) {
  const id = 'evt_1';
  const signature = secrets.map((secret) => webhooks.sign(body, id, timestamp, secret)).join(' ');
  return receive(async (url) => {
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
      body,
    });
  });
}

const refusal = (call: () => unknown): WebhookVerificationError => {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('verify accepted it');
};

describe('webhooks.verify', () => {
  it('accepts the raw body (Buffer or string) and answers the parsed event', async () => {
    const secret = newSecret();
    const { body, headers } = await deliver([secret]);
    const event = webhooks.verify(body, headers, secret);
    expect(event).toMatchObject({ id: 'evt_1', object: 'event', type: 'payment.succeeded', data: { order_reference: 'café' } });
    expect(webhooks.verify(body.toString('utf8'), headers, secret).id).toBe('evt_1');
    // The client exposes the same function, and a fetch Headers works as well as Node's headers.
    const fetchHeaders = new Headers(Object.entries(headers).map(([k, v]) => [k, String(v)]));
    expect(new Payments({ apiKey: 'sk_x', baseUrl: 'http://127.0.0.1:1' }).webhooks.verify(body, fetchHeaders, secret).id).toBe('evt_1');
  });

  it('refuses a body that was parsed and serialized again, and a parsed object', async () => {
    const secret = newSecret();
    const { body, headers } = await deliver([secret]);
    const reserialized = JSON.stringify(JSON.parse(body.toString('utf8')));
    expect(reserialized).not.toBe(body.toString('utf8'));
    expect(refusal(() => webhooks.verify(reserialized, headers, secret)).message).toMatch(/no signature matches/);
    expect(refusal(() => webhooks.verify(JSON.parse(body.toString('utf8')), headers, secret)).message).toMatch(/raw request body/);
  });

  it('refuses a wrong secret, a tampered body, and missing headers', async () => {
    const secret = newSecret();
    const { body, headers } = await deliver([secret]);
    expect(refusal(() => webhooks.verify(body, headers, newSecret())).message).toMatch(/no signature matches/);
    refusal(() => webhooks.verify(body.toString('utf8').replace('pay_1', 'pay_2'), headers, secret));
    refusal(() => webhooks.verify(body, { 'webhook-id': 'evt_1' }, secret));
  });

  it('refuses a signature with characters base64 does not have, as standardwebhooks does', async () => {
    const secret = newSecret();
    const { body, headers } = await deliver([secret]);
    expect(webhooks.verify(body, headers, secret).id).toBe('evt_1');
    for (const garbled of [`${headers['webhook-signature']}!!`, String(headers['webhook-signature']).replace('v1,', 'v1,.')]) {
      expect(refusal(() => webhooks.verify(body, { ...headers, 'webhook-signature': garbled }, secret)).message).toMatch(/no signature matches/);
      expect(() => new Webhook(secret).verify(body.toString('utf8'), { ...headers, 'webhook-signature': garbled } as unknown as Record<string, string>)).toThrow();
    }
  });

  it('refuses a stale timestamp (and one too far ahead), within toleranceSeconds', async () => {
    const secret = newSecret();
    const now = Math.floor(Date.now() / 1000);
    const stale = await deliver([secret], { timestamp: now - 301 });
    expect(refusal(() => webhooks.verify(stale.body, stale.headers, secret)).message).toMatch(/stale/);
    expect(webhooks.verify(stale.body, stale.headers, secret, { toleranceSeconds: 600 }).id).toBe('evt_1');
    const ahead = await deliver([secret], { timestamp: now + 301 });
    refusal(() => webhooks.verify(ahead.body, ahead.headers, secret));
  });

  it('accepts either of two space-separated signatures (secret rotation), and several secrets', async () => {
    const [oldSecret, newer] = [newSecret(), newSecret()];
    const { body, headers } = await deliver([newer, oldSecret]);
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(webhooks.verify(body, headers, oldSecret).id).toBe('evt_1');
    expect(webhooks.verify(body, headers, newer).id).toBe('evt_1');
    expect(webhooks.verify(body, headers, [newSecret(), oldSecret]).id).toBe('evt_1');
    refusal(() => webhooks.verify(body, headers, newSecret()));
  });

  it('agrees with the standardwebhooks reference library both ways', async () => {
    const secret = newSecret();
    const { body, headers } = await deliver([secret]);
    expect(new Webhook(secret).verify(body.toString('utf8'), headers as Record<string, string>)).toMatchObject({ id: 'evt_1' });
    const timestamp = new Date();
    const signature = new Webhook(secret).sign('msg_1', timestamp, RAW_BODY);
    const theirs = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signature };
    expect(webhooks.verify(RAW_BODY, theirs, secret).id).toBe('evt_1');
  });
});
