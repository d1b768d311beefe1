import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { CatchUpSubscription } from './catch-up-subscription';
import type { RecordedEvent } from './event-store';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { OperatorHandlers } from './operator-handlers';
import { PostgresEventStore } from './postgres-event-store';

let pool: Pool;
let store: PostgresEventStore;
const running: CatchUpSubscription[] = [];

beforeAll(async () => {
  const url = await createTestDatabase('es_ops');
  await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
  pool = createPool(url, { max: 8, statementTimeoutMs: 10_000 });
  store = new PostgresEventStore(pool);
  await pool.query(`CREATE TABLE views (event_id uuid PRIMARY KEY, type text NOT NULL)`);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((subscription) => subscription.stop()));
});

afterAll(async () => {
  await store.close();
  await pool.end();
});

/** A projection that fails on events named `Poison` until it is fixed. */
const scenario = () => {
  const tag = randomUUID().replace(/-/g, '');
  const prefix = `Ops${tag}.`;
  const projection = { fixed: false };
  const subscription = new CatchUpSubscription({
    subscriptionId: `payments.views-${tag}`,
    store,
    pool,
    typePrefixes: [prefix],
    poisonAfterFailures: 2,
    retryDelayMsMin: 1,
    retryDelayMsMax: 2,
    onError: () => undefined,
    onPoison: () => undefined,
    handle: async (events: RecordedEvent[], tx: PoolClient) => {
      for (const event of events) {
        if (event.type.endsWith('Poison') && !projection.fixed) throw new Error('projection bug');
        await tx.query('INSERT INTO views (event_id, type) VALUES ($1, $2)', [event.id, event.type]);
      }
    },
  });
  running.push(subscription);
  const operator = new OperatorHandlers('payments', [subscription], pool);
  const append = async (name: string) => {
    const streamId = `ops-${randomUUID()}`;
    await store.appendToStream(streamId, [{ type: `${prefix}${name}`, data: {} }], { expectedRevision: 'no_stream' });
    return (await store.readStream(streamId))[0]!;
  };
  return { subscription, operator, projection, append };
};

const viewOf = async (eventId: string) => (await pool.query('SELECT type FROM views WHERE event_id = $1', [eventId])).rows;

const eventually = async (assertion: () => Promise<void>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
};

describe('operator handlers of an app: subscriptions, parked events, replay', () => {
  it('reports a subscription before its first batch: no checkpoint, nothing parked', async () => {
    const { subscription, operator } = scenario();
    await subscription.start();

    const { items } = await operator.subscriptions();
    expect(items).toEqual([
      { subscriptionId: subscription.subscriptionId, app: 'payments', checkpoint: null, checkpointUpdatedAt: null, lagSeconds: 0, parkedEvents: 0, running: true },
    ]);
  });

  it('parks an event its handler keeps failing on, lists it, and replays it once the handler is fixed: the view row written, the parked row gone', async () => {
    const { subscription, operator, projection, append } = scenario();
    const poison = await append('Poison');
    const healthy = await append('Healthy');
    await subscription.start();
    await eventually(async () => expect(await viewOf(healthy.id)).toHaveLength(1));

    const parked = await operator.parkedEvents(10);
    expect(parked.items).toEqual([
      expect.objectContaining({ subscriptionId: subscription.subscriptionId, eventId: poison.id, streamId: poison.streamId, type: poison.type, error: expect.stringContaining('projection bug') }),
    ]);
    const [status] = (await operator.subscriptions()).items;
    expect(status).toMatchObject({ parkedEvents: 1, running: true, checkpoint: expect.stringMatching(/^\d+$/) });
    expect(Date.parse(status!.checkpointUpdatedAt!)).not.toBeNaN();

    projection.fixed = true;
    await expect(operator.replay({ subscriptionId: subscription.subscriptionId, eventId: poison.id })).resolves.toEqual({ replayed: 1, failed: [] });
    expect(await viewOf(poison.id)).toEqual([{ type: poison.type }]);
    expect((await operator.parkedEvents(10)).items).toEqual([]);
    expect((await operator.subscriptions()).items[0]).toMatchObject({ parkedEvents: 0 });
  });

  it('keeps an event that fails again parked, with the new error; a replay of the whole app then takes it', async () => {
    const { subscription, operator, projection, append } = scenario();
    const poison = await append('Poison');
    await subscription.start();
    await eventually(async () => expect((await operator.parkedEvents(10)).items).toHaveLength(1));
    await pool.query(`UPDATE es_parked_events SET error = 'old' WHERE event_id = $1`, [poison.id]);

    const again = await operator.replay({});
    expect(again).toEqual({ replayed: 0, failed: [{ subscriptionId: subscription.subscriptionId, eventId: poison.id, error: expect.stringContaining('projection bug') }] });
    expect((await operator.parkedEvents(10)).items).toEqual([expect.objectContaining({ eventId: poison.id, error: expect.stringContaining('projection bug') })]);
    expect(await viewOf(poison.id)).toEqual([]);

    projection.fixed = true;
    await expect(operator.replay({ subscriptionId: subscription.subscriptionId })).resolves.toEqual({ replayed: 1, failed: [] });
    expect(await viewOf(poison.id)).toHaveLength(1);
  });

  it('answers not found for a subscription of another app and for an event that is not parked', async () => {
    const { subscription, operator } = scenario();
    await expect(operator.replay({ subscriptionId: 'cash.cash-payment-views' })).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(operator.replay({ subscriptionId: subscription.subscriptionId, eventId: randomUUID() })).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});
