import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '@pay/testing';
import { AttemptRefusedError } from './orders';
import { startReceiver, type RunningReceiver } from './receiver';

/**
 * The receiver over real HTTP, on a real PostgreSQL, with events signed by `standardwebhooks` as the
 * service signs them. The service's API (the retrieves and creates the receiver makes) is a small real
 * HTTP server below that answers as the service would; the e2e spec runs it against the service itself.
 */
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const API_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const ROOT = join(__dirname, '..', '..', '..');

const RESOURCES: Record<string, { prefix: string; object: string; initial: string }> = {
  payments: { prefix: 'pay', object: 'payment', initial: 'pending' },
  cash_payments: { prefix: 'cp', object: 'cash_payment', initial: 'awaiting_payment' },
  supplier_payments: { prefix: 'sp', object: 'supplier_payment', initial: 'awaiting_approval' },
  collections: { prefix: 'col', object: 'collection', initial: 'awaiting_collection' },
};

/** POST /v1/{resource} (one object per Idempotency-Key) and GET /v1/{resource}/{id}, with the bearer key. */
class ServiceApi {
  readonly objects = new Map<string, any>();
  readonly calls: string[] = [];
  readonly keys: string[] = [];
  /** While set, GETs wait for it. */
  hold: Promise<void> | undefined;
  /** The next n GETs answer 500. */
  failures = 0;
  url = '';
  private server: Server | undefined;
  private readonly byKey = new Map<string, string>();
  private count = 0;

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  set(id: string, changes: Record<string, unknown>): any {
    const object = { ...this.objects.get(id), ...changes };
    this.objects.set(id, object);
    return object;
  }

  gets(id: string): number {
    return this.calls.filter((call) => call === `GET ${id}`).length;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.headers.authorization !== `Bearer ${API_KEY}`) return void answer(401, { error: { code: 'authentication_required', message: 'bad key' } });
    const [, , name, id] = new URL(request.url!, 'http://x').pathname.split('/');
    const resource = RESOURCES[name!];
    if (!resource) return void answer(404, { error: { code: 'resource_not_found', message: 'no route' } });
    if (request.method === 'POST' && !id) {
      const key = String(request.headers['idempotency-key']);
      this.keys.push(key);
      const existing = this.byKey.get(key);
      if (existing) return void answer(201, this.objects.get(existing));
      const object = { id: `${resource.prefix}_${++this.count}${randomBytes(4).toString('hex')}`, object: resource.object, status: resource.initial, created_at: new Date().toISOString(), ...JSON.parse(Buffer.concat(chunks).toString()) };
      this.objects.set(object.id, object);
      this.byKey.set(key, object.id);
      return void answer(201, object);
    }
    this.calls.push(`GET ${id}`);
    await this.hold;
    if (this.failures > 0) {
      this.failures -= 1;
      return void answer(500, { error: { code: 'internal_error', message: 'try again' } });
    }
    const object = this.objects.get(id!);
    return void (object ? answer(200, object) : answer(404, { error: { code: 'resource_not_found', message: `no ${id}` } }));
  }
}

const newEvent = (type: string, data: Record<string, unknown>, createdAt = new Date()) => ({
  id: `evt_${randomBytes(12).toString('hex')}`,
  object: 'event',
  type,
  created_at: createdAt.toISOString(),
  data,
});
type TestEvent = ReturnType<typeof newEvent>;

/** Signs as the service does, over a body with its own spacing: only a receiver that verifies the raw bytes accepts it. */
async function deliver(baseUrl: string, event: TestEvent, { secret = SECRET, at = new Date(), body }: { secret?: string; at?: Date; body?: string } = {}) {
  const raw = JSON.stringify(event, null, 1);
  const response = await fetch(`${baseUrl}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, at, raw),
    },
    body: body ?? raw,
  });
  await response.text();
  return response.status;
}

async function stored(receiver: RunningReceiver, id: string) {
  const { rows } = await receiver.pool.query('SELECT * FROM received_events WHERE id = $1', [id]);
  return rows;
}

async function processed(receiver: RunningReceiver, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await stored(receiver, id);
    if (row?.processed_at) return row;
    if (Date.now() > deadline) throw new Error(`${id} not processed within ${timeoutMs} ms: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let orderCount = 0;

describe('reference receiver', () => {
  let api: ServiceApi;
  let receiver: RunningReceiver;
  const logs: string[] = [];

  beforeAll(async () => {
    api = await new ServiceApi().start();
    receiver = await startReceiver({ databaseUrl: await createTestDatabase('receiver'), apiKey: API_KEY, baseUrl: api.url, webhookSecret: SECRET, pollMs: 100, log: (line) => logs.push(line) });
  });
  afterAll(async () => {
    await receiver?.stop();
    await api?.stop();
  });

  const order = async (overrides: Record<string, unknown> = {}) => {
    const reference = `order-${++orderCount}`;
    await receiver.orders.create({ reference, kind: 'payment', amount: 1_250_000, currency: 'DZD', connection: 'conn_shop', returnUrl: 'https://shop.example/return', ...overrides });
    return reference;
  };
  /** createAttempt, and the object the API created for it. */
  const attempt = async (reference: string) => api.objects.get((await receiver.orders.createAttempt(reference)).objectId!);
  const orderOf = async (reference: string) => (await receiver.orders.get(reference))!;

  it('stores a payment.succeeded before the 2xx, then processes it: the order is paid by that attempt', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded' });
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 });

    expect(await deliver(receiver.url, event)).toBe(200);
    expect(await processed(receiver, event.id)).toMatchObject({ type: 'payment.succeeded', outcome: 'order paid', body: event });
    expect(await orderOf(reference)).toMatchObject({ status: 'paid', paidBy: payment.id, review: false, attempts: [{ objectId: payment.id, status: 'succeeded', objectVersion: 2 }] });
    expect(api.gets(payment.id)).toBe(0); // on time and consistent: the event's data is used as is
  });

  it('a duplicate is acknowledged with 2xx and processed once, also when ten copies arrive together', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded' });
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 });
    expect(await deliver(receiver.url, event)).toBe(200);
    const first = await processed(receiver, event.id);

    const statuses = await Promise.all(Array.from({ length: 10 }, () => deliver(receiver.url, event)));
    expect(statuses).toEqual(Array(10).fill(200));
    await new Promise((resolve) => setTimeout(resolve, 300)); // room for a (wrong) second processing
    const rows = await stored(receiver, event.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].processed_at).toEqual(first.processed_at);
    expect(logs.filter((line) => line.startsWith(`processed ${event.id}`))).toHaveLength(1);
    expect(logs.filter((line) => line.startsWith(`duplicate ${event.id}`))).toHaveLength(10);
    expect(await orderOf(reference)).toMatchObject({ status: 'paid', paidBy: payment.id, review: false });
  });

  it('refuses with 4xx, and stores nothing of, a forged signature, a body changed after signing, a missing signature', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded' });
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 });

    expect(await deliver(receiver.url, event, { secret: `whsec_${randomBytes(24).toString('base64')}` })).toBe(400);
    expect(await deliver(receiver.url, event, { body: JSON.stringify(event, null, 1).replace('1250000', '1') })).toBe(400);
    // The same event re-serialized (other spacing) no longer matches the signature either: verification is on the raw bytes.
    expect(await deliver(receiver.url, event, { body: JSON.stringify(event) })).toBe(400);
    const unsigned = await fetch(`${receiver.url}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    expect(unsigned.status).toBe(400);

    expect(await stored(receiver, event.id)).toEqual([]);
    expect((await orderOf(reference)).status).toBe('unpaid');
  });

  it('refuses a stale or future webhook-timestamp (a replay), correctly signed: 4xx, not stored', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded' });
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 });

    expect(await deliver(receiver.url, event, { at: new Date(Date.now() - 10 * 60_000) })).toBe(400);
    expect(await deliver(receiver.url, event, { at: new Date(Date.now() + 10 * 60_000) })).toBe(400);
    expect(await stored(receiver, event.id)).toEqual([]);
    expect(logs).toContainEqual(expect.stringMatching(/^refused a delivery: webhook-timestamp is 60\d s away from now \(tolerance 300 s\): refused as stale or replayed$/));
  });

  it('a mismatch (amount) flags the order for review, retrieves the object, and does not update the order', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded', amount: 1_000 });
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 });

    expect(await deliver(receiver.url, event)).toBe(200);
    expect((await processed(receiver, event.id)).outcome).toBe('flagged: amount 1000 ≠ 1250000');
    expect(api.gets(payment.id)).toBe(1);
    const flagged = await orderOf(reference);
    expect(flagged).toMatchObject({ status: 'unpaid', paidBy: null, review: true, attempts: [{ objectId: payment.id, status: 'pending' }] });
    expect(flagged.reviewReason).toContain(`payment.succeeded ${event.id} about ${payment.id}: amount 1000 ≠ 1250000 (retrieved: succeeded, 1000 DZD); order not updated`);
  });

  it('an object that is not an attempt of the order (same reference) is flagged, not applied', async () => {
    const reference = await order();
    const stranger = { id: 'pay_unknown000', object: 'payment', status: 'succeeded', amount: 1_250_000, currency: 'DZD', order_reference: reference, merchant_connection: 'conn_shop' };
    const event = newEvent('payment.succeeded', { ...stranger, object_version: 2 });

    expect(await deliver(receiver.url, event)).toBe(200);
    expect((await processed(receiver, event.id)).outcome).toBe(`flagged: pay_unknown000 is not an attempt of order ${reference}`);
    expect(await orderOf(reference)).toMatchObject({ status: 'unpaid', review: true, reviewReason: expect.stringContaining('not found at the API') });
  });

  it('out of order: the earlier attempt declined arriving after the later one succeeded leaves the order paid, flagged (rule 6); rule 8 between them', async () => {
    const reference = await order();
    const first = await attempt(reference);
    // Rule 8: no second attempt while the first is pending at the API.
    await expect(receiver.orders.createAttempt(reference)).rejects.toThrow(new AttemptRefusedError(`attempt ${first.id} of order ${reference} is pending`));
    const declined = api.set(first.id, { status: 'declined', decline_reason: 'insufficient_balance' });
    const second = api.set((await attempt(reference)).id, { status: 'succeeded' });
    expect(new Set(api.keys.slice(-2)).size).toBe(2); // a new attempt, a new Idempotency-Key
    const declinedEvent = newEvent('payment.declined', { ...declined, object_version: 2 }, new Date(Date.now() - 5_000));
    const succeededEvent = newEvent('payment.succeeded', { ...second, object_version: 2 });

    expect(await deliver(receiver.url, succeededEvent)).toBe(200);
    await processed(receiver, succeededEvent.id);
    expect(await deliver(receiver.url, declinedEvent)).toBe(200);
    expect((await processed(receiver, declinedEvent.id)).outcome).toBe(
      `flagged: ${first.id} declined after the order was paid (late: declined but the order is paid; retrieved declined)`,
    );

    // Asked by both createAttempt calls (rule 8: pending, then declined), and again because the event did not fit (rule 7).
    expect(api.gets(first.id)).toBe(3);
    const paid = await orderOf(reference);
    expect(paid).toMatchObject({ status: 'paid', paidBy: second.id, review: true });
    expect(paid.reviewReason).toContain(`${first.id} is declined but the order is paid (by ${second.id}); order stays paid`);
    // Paid: no further attempt.
    await expect(receiver.orders.createAttempt(reference)).rejects.toThrow(`order ${reference} is already paid`);
  });

  it('a late event (created long ago) is applied with the status retrieved by GET, not its own data', async () => {
    const reference = await order({ kind: 'cash_payment', returnUrl: undefined });
    const cash = api.set((await attempt(reference)).id, { status: 'succeeded', payment_reference: 'CP-1' });
    // Two days late, and its data still says awaiting_payment (as an event built from a stale read would).
    const event = newEvent('cash_payment.succeeded', { ...cash, status: 'awaiting_payment', object_version: 2 }, new Date(Date.now() - 2 * 86_400_000));

    expect(await deliver(receiver.url, event)).toBe(200);
    expect((await processed(receiver, event.id)).outcome).toMatch(/^order paid \(late: created 1728\d\d s ago; retrieved succeeded\)$/);
    expect(api.gets(cash.id)).toBe(1);
    expect(await orderOf(reference)).toMatchObject({ status: 'paid', paidBy: cash.id, review: false, attempts: [{ status: 'succeeded' }] });
  });

  it('collection.collected does not make the collection payable; settlement.completed does; an older event after it changes nothing', async () => {
    const reference = await order({ kind: 'collection', returnUrl: undefined, connection: 'conn_wholesaler' });
    const collection = await attempt(reference);
    const collected = api.set(collection.id, { status: 'collected_awaiting_deposit', collected_at: new Date().toISOString() });
    const collectedEvent = newEvent('collection.collected', { ...collected, settlement: null, object_version: 2 });
    expect(await deliver(receiver.url, collectedEvent)).toBe(200);
    expect((await processed(receiver, collectedEvent.id)).outcome).toBe('order collected');
    expect((await orderOf(reference)).status).toBe('collected');

    const settlement = { gross_amount: 1_250_000, fee_amount: 12_500, net_amount: 1_237_500, currency: 'DZD', settled_at: new Date().toISOString() };
    const settled = api.set(collection.id, { status: 'settled', settlement });
    const settledEvent = newEvent('settlement.completed', { ...settled, object_version: 4 });
    expect(await deliver(receiver.url, settledEvent)).toBe(200);
    expect((await processed(receiver, settledEvent.id)).outcome).toBe('order payable');
    expect(await orderOf(reference)).toMatchObject({ status: 'payable', paidBy: collection.id, review: false });

    // deposit_under_review (version 3) arrives after the settlement (version 4): late; the GET says settled.
    const reviewEvent = newEvent('collection.deposit_under_review', { ...settled, status: 'deposit_under_review', settlement: null, object_version: 3 });
    expect(await deliver(receiver.url, reviewEvent)).toBe(200);
    expect((await processed(receiver, reviewEvent.id)).outcome).toBe('order already payable (late: object_version 3, 4 already seen; retrieved settled)');
    expect(await orderOf(reference)).toMatchObject({ status: 'payable', review: false, attempts: [{ status: 'settled', objectVersion: 4 }] });
  });

  it('a settlement.completed whose settlement differs from the order is flagged, not paid out', async () => {
    const reference = await order({ kind: 'collection', returnUrl: undefined, connection: 'conn_wholesaler' });
    const collection = await attempt(reference);
    const settled = api.set(collection.id, { status: 'settled', settlement: { gross_amount: 1_000_000, fee_amount: 0, net_amount: 1_000_000, currency: 'DZD' } });
    const event = newEvent('settlement.completed', { ...settled, object_version: 4 });
    expect(await deliver(receiver.url, event)).toBe(200);
    expect((await processed(receiver, event.id)).outcome).toBe('flagged: settlement.gross_amount 1000000 ≠ 1250000');
    expect(await orderOf(reference)).toMatchObject({ status: 'unpaid', review: true });
  });

  it('stores and acknowledges types without an order effect, and unknown ones, without acting', async () => {
    const events = [
      newEvent('refund.succeeded', { id: 're_1', object: 'refund', payment: 'pay_x', amount: 100, currency: 'DZD', status: 'succeeded' }),
      newEvent('webhook_endpoint.disabled', { id: 'we_1', object: 'webhook_endpoint', status: 'disabled' }),
      newEvent('invoice.finalized', { id: 'in_1' }),
    ];
    for (const event of events) {
      expect(await deliver(receiver.url, event)).toBe(200);
      expect((await processed(receiver, event.id)).outcome).toBe('ignored: no order effect');
    }
  });

  it('a retrieve that fails leaves the event unprocessed (nothing committed) and it is tried again', async () => {
    const reference = await order();
    const payment = api.set((await attempt(reference)).id, { status: 'succeeded' });
    api.failures = 3; // the first try and the SDK's two retries all get 500
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 }, new Date(Date.now() - 3_600_000));

    expect(await deliver(receiver.url, event)).toBe(200);
    const row = await processed(receiver, event.id);
    expect(row).toMatchObject({ failures: 1, outcome: expect.stringMatching(/^order paid \(late: created 36\d\d s ago; retrieved succeeded\)$/), last_error: null });
    expect(api.gets(payment.id)).toBe(4);
    expect(await orderOf(reference)).toMatchObject({ status: 'paid', paidBy: payment.id });
  });

  it('never logs the webhook secret or the API key', () => {
    expect(logs.length).toBeGreaterThan(10);
    for (const line of logs) {
      expect(line).not.toContain(SECRET.slice(6));
      expect(line).not.toContain(API_KEY);
    }
  });
});

describe('reference receiver: a crash between storing and processing', () => {
  let api: ServiceApi;
  let child: ChildProcess | undefined;
  let restarted: RunningReceiver | undefined;

  beforeAll(async () => {
    api = await new ServiceApi().start();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await restarted?.stop();
    await api?.stop();
  });

  it('a receiver killed while processing (after its 2xx) loses nothing: the next start processes the event exactly once', async () => {
    const databaseUrl = await createTestDatabase('receiver_crash');
    // `npm run receiver` as its own process.
    child = spawn(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'examples', 'receiver', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', PAY_API_KEY: API_KEY, PAY_BASE_URL: api.url, WEBHOOK_SECRET: SECRET, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the receiver did not start:\n${output}`)), 60_000);
      const look = () => {
        const found = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
        if (!found) return;
        clearTimeout(timer);
        resolve(found[1]!);
      };
      child!.stdout!.on('data', look);
      child!.on('exit', () => reject(new Error(`the receiver exited:\n${output}`)));
    });

    const reference = 'crash-1';
    const creating = await fetch(`${url}/orders`, {
      method: 'POST',
      body: JSON.stringify({ reference, kind: 'payment', amount: 1_250_000, currency: 'DZD', connection: 'conn_shop', returnUrl: 'https://shop.example/return' }),
    });
    expect(creating.status).toBe(201);
    const attempt = (await (await fetch(`${url}/orders/${reference}/attempts`, { method: 'POST' })).json()) as { objectId: string };
    const payment = api.set(attempt.objectId, { status: 'succeeded' });

    // Late, so the worker retrieves the payment inside its transaction; the API holds that GET until the process is dead.
    let release: () => void = () => undefined;
    api.hold = new Promise<void>((resolve) => (release = resolve));
    const event = newEvent('payment.succeeded', { ...payment, object_version: 2 }, new Date(Date.now() - 3_600_000));
    expect(await deliver(url, event)).toBe(200);
    for (let waited = 0; api.gets(payment.id) === 0; waited += 50) {
      if (waited > 20_000) throw new Error(`the worker did not retrieve ${payment.id}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = undefined;
    api.hold = undefined;
    release();

    restarted = await startReceiver({ databaseUrl, apiKey: API_KEY, baseUrl: api.url, webhookSecret: SECRET, pollMs: 100, log: () => undefined });
    const row = await processed(restarted, event.id);
    expect(row).toMatchObject({ outcome: expect.stringMatching(/^order paid \(late: created 36\d\d s ago; retrieved succeeded\)$/), failures: 0 });
    expect(await stored(restarted, event.id)).toHaveLength(1);
    expect(await restarted.orders.get(reference)).toMatchObject({ status: 'paid', paidBy: payment.id, review: false });
    // Delivered again after the restart: acknowledged, not processed a second time.
    expect(await deliver(restarted.url, event)).toBe(200);
    expect((await stored(restarted, event.id))[0].processed_at).toEqual(row.processed_at);
  });
});
