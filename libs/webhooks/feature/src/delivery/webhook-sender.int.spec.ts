import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX, WEBHOOK_RESPONSE_READ_BYTES_MAX } from '@pay/kernel';
import { newWebhookSecret, sendWebhook } from './webhook-sender';

/** A real receiver on 127.0.0.1 that records what reaches it. */
interface Receiver {
  url: string;
  port: number;
  requests: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  connections: number;
  server: Server;
}

const receivers: Receiver[] = [];

const startReceiver = async (answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> => {
  const receiver = { requests: [], connections: 0 } as unknown as Receiver;
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  receiver.server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receivers.push(receiver);
  return receiver;
};

afterAll(async () => {
  for (const { server } of receivers) {
    server.closeAllConnections(); // the receiver that never answers still holds a socket
    await new Promise((resolve) => server.close(resolve));
  }
});

const secret = newWebhookSecret();
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment.succeeded', created_at: '2026-11-22T10:00:00.000Z', data: { note: 'été ✓' } });
const delivery = (url: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({ url, secret, eventId: 'evt_1', body, sandbox: true, ...extra });

describe('sendWebhook: POST of the event JSON signed as Standard Webhooks', () => {
  let ok: Receiver;
  beforeAll(async () => {
    ok = await startReceiver((_req, res) => res.writeHead(204).end());
  });

  it('delivers a body whose signature verifies with the endpoint secret and fails with another', async () => {
    const result = await delivery(ok.url);
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
    const received = ok.requests.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.body).toBe(body);
    const headers = received.headers as Record<string, string>;
    expect(new Webhook(secret).verify(received.body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(received.body, headers)).toThrow('No matching signature found');
  });

  it('sends webhook-id = event id, webhook-timestamp = unix seconds of this attempt, json content type, user agent', async () => {
    await delivery(ok.url);
    const { headers } = ok.requests.at(-1)!;
    expect(headers['webhook-id']).toBe('evt_1');
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('payments-webhooks/1');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('stamps the time of the clock it is given (the real wall clock)', async () => {
    await delivery(ok.url, { now: () => new Date('2026-11-22T10:00:00.999Z') });
    expect(ok.requests.at(-1)!.headers['webhook-timestamp']).toBe(String(Date.parse('2026-11-22T10:00:00Z') / 1000));
  });

  it('reaches http://localhost in sandbox through the guarded lookup', async () => {
    const result = await delivery(`http://localhost:${ok.port}/hook`);
    expect(result).toMatchObject({ ok: true, statusCode: 204 });
  });
});

describe('sendWebhook: any 2xx within the timeout is a success, anything else a failure', () => {
  it('a 500 is a failure with its status code', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end('boom'));
    expect(await delivery(receiver.url)).toMatchObject({ ok: false, statusCode: 500, error: 'status 500', responseBodySnippet: 'boom' });
  });

  it('a 302 is a failure and the redirect is not followed', async () => {
    const target = await startReceiver((_req, res) => res.writeHead(200).end());
    const redirecting = await startReceiver((_req, res) => res.writeHead(302, { location: target.url }).end());
    const result = await delivery(redirecting.url);
    expect(result).toMatchObject({ ok: false, statusCode: 302 });
    expect(result.error).toContain('redirect 302 not followed');
    expect(target.connections).toBe(0);
  });

  it('a receiver that never answers times out after timeoutMs', async () => {
    const silent = await startReceiver(() => undefined);
    const result = await delivery(silent.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(2_000);
  });

  it('a 2xx whose body never ends still counts: the status decides', async () => {
    const trickle = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('accepted');
    });
    expect(await delivery(trickle.url, { timeoutMs: 300 })).toMatchObject({ ok: true, statusCode: 200, error: null, responseBodySnippet: 'accepted' });
  });

  it('reads at most 64 KiB of the response', async () => {
    const chatty = await startReceiver((_req, res) => res.writeHead(200).end('x'.repeat(1024 * 1024)));
    const result = await delivery(chatty.url);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(result.responseBodySnippet!.length).toBe(WEBHOOK_RESPONSE_READ_BYTES_MAX);
  });

  it('a refused connection is a failure, not a throw', async () => {
    const closed = await startReceiver(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    const result = await delivery(closed.url);
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/^connection refused/);
  });

  it('a TLS failure is a failure, not a throw', async () => {
    const plain = await startReceiver((_req, res) => res.writeHead(200).end());
    const result = await delivery(`https://127.0.0.1:${plain.port}/hook`);
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/^TLS error/);
    expect(plain.requests).toHaveLength(0);
  });

  it('a bad secret or an event id unfit for a header is a failure, not a throw', async () => {
    expect(await delivery('http://127.0.0.1:1/hook', { secret: 'whsec_' })).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(await delivery('http://127.0.0.1:1/hook', { eventId: 'evt_1\r\nx-injected: 1' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Invalid character in header content/),
    });
  });
});

describe('sendWebhook: outside sandbox loopback is refused before connecting', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(200).end());
  });

  it.each([
    ['the http url', () => receiver.url, /^url must use https:\/\//],
    ['an https IP literal', () => `https://127.0.0.1:${receiver.port}/hook`, /^url host 127.0.0.1 is a loopback address/],
    ['a name, checked at connect time', () => `https://localhost:${receiver.port}/hook`, /^url host localhost resolves to 127.0.0.1, a loopback address/],
  ])('refuses %s and the receiver sees nothing', async (_name, url, message) => {
    const result = await delivery(url(), { sandbox: false });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(message) });
    expect(receiver.connections).toBe(0);
  });
});

describe('sendWebhook: connections to one origin', () => {
  it('keeps a connection for each attempt that was in flight at once, to every endpoint of the origin together: the next burst opens none', async () => {
    // Four endpoints on one origin (paths of one server), each with its sixteen attempts in flight at once.
    const inFlight = 4 * WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX;
    let held: ServerResponse[] = [];
    const receiver = await startReceiver((_req, res) => {
      held.push(res);
      if (held.length === inFlight) for (const response of held.splice(0)) response.writeHead(204).end();
    });
    const origin = receiver.url.replace(/\/hook$/, '');
    const burst = () => Promise.all(Array.from({ length: inFlight }, (_, i) => delivery(`${origin}/hooks/${i % 4}`)));

    expect((await burst()).every((result) => result.ok)).toBe(true);
    expect(receiver.connections).toBe(inFlight);
    held = [];
    expect((await burst()).every((result) => result.ok)).toBe(true);
    // Before: sixteen idle sockets kept per origin, so the second burst opened 48 connections again.
    expect(receiver.connections).toBe(inFlight);
  });
});
