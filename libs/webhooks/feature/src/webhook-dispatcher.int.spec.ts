import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { newId, systemClock } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { DISPATCHER_DEFAULTS, WebhookDispatcher, type DispatcherOptions } from './webhook-dispatcher';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore, type NewDelivery } from './webhooks.store';

/**
 * When a dispatcher claims: the real store on PostgreSQL, real attempts to a real HTTP endpoint on
 * loopback that holds each request until the test answers it. The poll is an hour away, so every claim
 * here is one the dispatcher decided to make; the store counts them.
 */
const HOUR_MS = 3_600_000;

/** Answers requests only when told, in the order they came. */
class HoldingEndpoint {
  readonly held: ServerResponse[] = [];
  private server: Server | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];
  received = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        this.received += 1;
        this.held.push(response);
        this.waiters = this.waiters.filter((waiter) => (this.received >= waiter.count ? (waiter.resolve(), false) : true));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
    return this;
  }

  /** Resolves once `count` requests have arrived in all; the bound is generous (shared, slow CI machines). */
  waitFor(count: number): Promise<void> {
    if (this.received >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`endpoint got ${this.received} of ${count} requests`)), 30_000);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  answer(count = this.held.length): void {
    for (const response of this.held.splice(0, count)) response.writeHead(200).end('ok');
  }

  async stop(): Promise<void> {
    this.answer();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** The real store, counting the claims made through it. */
class CountingStore extends WebhooksStore {
  claims = 0;
  override claimDue(...args: Parameters<WebhooksStore['claimDue']>): ReturnType<WebhooksStore['claimDue']> {
    this.claims += 1;
    return super.claimDue(...args);
  }
}

let pool: Pool;
let endpoint: HoldingEndpoint;
const running: WebhookDispatcher[] = [];

beforeAll(async () => {
  const url = await createTestDatabase('wh_dispatcher');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  pool = createPool(url, { max: 10, statementTimeoutMs: 60_000 });
});
beforeEach(async () => {
  endpoint = await new HoldingEndpoint().start();
});
afterEach(async () => {
  await endpoint.stop();
  await Promise.all(running.splice(0).map((dispatcher) => dispatcher.stop()));
  // Each test's endpoint is deleted: a later test's claims see only their own.
  await pool.query('UPDATE wh_endpoints SET deleted_at = now() WHERE deleted_at IS NULL');
});
afterAll(() => pool.end());

function startDispatcher(store: WebhooksStore, options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher(store, systemClock, { ...DISPATCHER_DEFAULTS, sandbox: true, pollIntervalMs: HOUR_MS, ...options });
  dispatcher.start();
  running.push(dispatcher);
  return dispatcher;
}

/** An endpoint of a new integrator, at the holding endpoint's URL; answers a function recording one of its events. */
async function integrator(store: WebhooksStore): Promise<() => Promise<NewDelivery[]>> {
  const integratorId = newId('integrator');
  await store.createEndpoint({ id: newId('webhookEndpoint'), integratorId, url: endpoint.url, enabledEvents: ['*'], secret: 'whsec_test', status: 'enabled', disabledReason: null, createdAt: new Date() });
  return async () => {
    const event: IntegrationEvent = { id: newId('event'), type: 'payment.succeeded', createdAt: new Date().toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } };
    return (await store.recordEvent(event, new Date())).deliveries;
  };
}

const succeeded = async (): Promise<number> =>
  (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM wh_deliveries d JOIN wh_endpoints e ON e.id = d.endpoint_id WHERE e.deleted_at IS NULL AND d.status = 'succeeded'`)).rows[0]!.n;

/** A claim starts a turn after its wake: past this, any claim the dispatcher decided on has been counted. */
const aTurnLater = () => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the dispatcher claims when there may be something to claim, and only then', () => {
  it('does not claim again for recorded deliveries that a claim already took', async () => {
    const store = new CountingStore(pool);
    const record = await integrator(store);
    const dispatcher = startDispatcher(store);
    await until(async () => store.claims === 1, 'the first claim, at start');

    // Taken by a claim that ran before the record's caller told the dispatcher about them.
    const first = await record();
    dispatcher.wake();
    await endpoint.waitFor(1);
    dispatcher.recorded(first);
    await aTurnLater();
    expect(store.claims).toBe(2);

    // Told while the claim that takes them runs.
    const second = await record();
    dispatcher.wake();
    dispatcher.recorded(second);
    await endpoint.waitFor(2);
    expect(store.claims).toBe(3);

    // Nothing claimed them yet: a claim, now.
    dispatcher.recorded(await record());
    await endpoint.waitFor(3);
    expect(store.claims).toBe(4);
  });

  it("claims again when a slot frees on an endpoint whose due deliveries it left, not when nothing was left, nor for a record there", async () => {
    const store = new CountingStore(pool);
    const record = await integrator(store);
    const dispatcher = startDispatcher(store, { inFlightPerEndpointMax: 2 });
    await until(async () => store.claims === 1, 'the first claim, at start');
    const ids = [...(await record()), ...(await record()), ...(await record())];
    dispatcher.recorded(ids);
    await endpoint.waitFor(2);
    expect(store.claims).toBe(2); // two slots: the third delivery left due

    // A fourth, for the endpoint the claim left due deliveries: it waits for a slot like the third.
    dispatcher.recorded(await record());
    await aTurnLater();
    expect(store.claims).toBe(2);

    endpoint.answer(1); // a slot frees, and takes the third (the oldest)
    await endpoint.waitFor(3);
    expect(store.claims).toBe(3);
    endpoint.answer(1); // and the next, the fourth
    await endpoint.waitFor(4);
    expect(store.claims).toBe(4);

    endpoint.answer(); // nothing is left due: the slots that free claim nothing
    await until(async () => (await succeeded()) === 4, 'the four attempts recorded');
    expect(store.claims).toBe(4);
  });

  it("claims again shortly for due deliveries that wait on another dispatcher's slots, without waiting for the poll", async () => {
    const [storeX, storeY] = [new CountingStore(pool), new CountingStore(pool)];
    const record = await integrator(storeX);
    const options = { inFlightPerEndpointMax: 1, claimRetryMs: 50 };
    const [x, y] = [startDispatcher(storeX, options), startDispatcher(storeY, options)];
    await until(async () => storeX.claims === 1 && storeY.claims === 1, 'the first claims, at start');

    x.recorded(await record());
    await endpoint.waitFor(1); // X holds the endpoint's one slot
    y.recorded(await record()); // Y finds it taken, and leaves its delivery due
    await until(async () => storeY.claims >= 3, 'Y claiming again while the slot is taken');

    endpoint.answer(); // X's slot frees: X left nothing due, so only Y's retry can take it
    await endpoint.waitFor(2);
    endpoint.answer();
    await until(async () => (await succeeded()) === 2, 'both attempts recorded');
  });
});
