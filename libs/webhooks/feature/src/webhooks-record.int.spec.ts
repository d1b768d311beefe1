import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore, type NewDelivery } from './webhooks.store';

/**
 * Recording events (group commit): the events recorded at the same time share one statement, which
 * keeps their order, records each id once, and gives each new event one delivery per matching endpoint.
 */
const t0 = new Date('2026-11-27T10:00:00.000Z');
let pool: Pool;

beforeAll(async () => {
  const url = await createTestDatabase('wh_record');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  pool = createPool(url, { max: 10, statementTimeoutMs: 60_000 });
});
afterAll(() => pool.end());

const anEvent = (integratorId: string, type: IntegrationEvent['type'] = 'payment.succeeded'): IntegrationEvent => ({
  id: newId('event'),
  type,
  createdAt: t0.toISOString(),
  integratorId,
  objectId: newId('payment'),
  data: { object_version: 1 },
});

async function endpoints(store: WebhooksStore, integratorId: string, count: number, enabledEvents = ['*']): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('webhookEndpoint'));
  for (const id of ids) {
    await store.createEndpoint({ id, integratorId, url: 'https://hooks.example/x', enabledEvents, secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: t0 });
  }
  return ids;
}

const deliveriesOf = async (eventId: string) =>
  (await pool.query<{ endpoint_id: string }>('SELECT endpoint_id FROM wh_deliveries WHERE event_id = $1 ORDER BY endpoint_id', [eventId])).rows.map((row) => row.endpoint_id);

/** The event's deliveries as recordEvent answers them, by id. */
const newDeliveriesOf = async (eventId: string) =>
  (await pool.query<{ id: string; endpoint_id: string }>('SELECT id, endpoint_id FROM wh_deliveries WHERE event_id = $1 ORDER BY id', [eventId])).rows.map((row) => ({
    deliveryId: row.id,
    endpointId: row.endpoint_id,
  }));

const byId = (deliveries: NewDelivery[]) => [...deliveries].sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1));

/** What a recording answered, with its deliveries counted. */
const counted = ({ recorded, deliveries }: { recorded: boolean; deliveries: NewDelivery[] }) => ({ recorded, deliveries: deliveries.length });

describe('recording events', () => {
  it('stores each body exactly as it will be signed, quotes, backslashes and non-ASCII text included, when recorded together', async () => {
    const store = new WebhooksStore(pool);
    const integratorId = newId('integrator');
    await endpoints(store, integratorId, 1);
    const events = ['a "quoted" \\ value', 'été ✓ 🙂 \\"\\', 'line\nbreak\ttab'].map((note) => ({ ...anEvent(integratorId), data: { object_version: 1, note } }));
    await Promise.all(events.map((event) => store.recordEvent(event, t0)));
    const { rows } = await pool.query<{ id: string; body: string }>('SELECT id, body FROM wh_events WHERE integrator_id = $1', [integratorId]);
    const bodies = new Map(rows.map((row) => [row.id, row.body]));
    for (const event of events) {
      expect(bodies.get(event.id)).toBe(JSON.stringify({ id: event.id, object: 'event', type: event.type, created_at: event.createdAt, data: event.data }));
    }
  });

  it('records events submitted together in one statement, in their order, each with a delivery per matching endpoint', async () => {
    const store = new WebhooksStore(pool);
    const integratorId = newId('integrator');
    const wanted = await endpoints(store, integratorId, 2, ['payment.succeeded']);
    await endpoints(store, integratorId, 1, ['payment.failed']);
    const events = Array.from({ length: 20 }, () => anEvent(integratorId));
    const outcomes = await Promise.all(events.map((event) => store.recordEvent(event, t0)));

    expect(outcomes.map(counted)).toEqual(events.map(() => ({ recorded: true, deliveries: 2 })));
    // Each answers its own deliveries and their endpoints (the dispatcher is told which ones to look for).
    for (const [index, event] of events.entries()) expect(byId(outcomes[index]!.deliveries)).toEqual(await newDeliveriesOf(event.id));
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM wh_events WHERE integrator_id = $1 ORDER BY seq', [integratorId]);
    expect(rows.map((row) => row.id)).toEqual(events.map((event) => event.id));
    for (const event of events) expect(await deliveriesOf(event.id)).toEqual([...wanted].sort());
    // A row's xmin is the transaction that wrote it: submitted in one turn, the 20 events were written by one.
    const { rows: xmins } = await pool.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM wh_events WHERE integrator_id = $1', [integratorId]);
    expect(xmins[0]!.n).toBe(1);
  });

  it('records an id once: a repeat in the same group or later is answered as a repeat, with no second delivery', async () => {
    const store = new WebhooksStore(pool);
    const integratorId = newId('integrator');
    await endpoints(store, integratorId, 1);
    const event = anEvent(integratorId);
    const together = await Promise.all([store.recordEvent(event, t0), store.recordEvent(event, t0), store.recordEvent(anEvent(integratorId), t0)]);
    expect(together.map(counted)).toEqual([
      { recorded: true, deliveries: 1 },
      { recorded: false, deliveries: 0 },
      { recorded: true, deliveries: 1 },
    ]);
    expect(counted(await store.recordEvent(event, t0))).toEqual({ recorded: false, deliveries: 0 });
    expect(await deliveriesOf(event.id)).toHaveLength(1);
  });

  it('records an event with more matching endpoints than one statement draws ids for, beside the others of its group', async () => {
    const store = new WebhooksStore(pool);
    const many = newId('integrator');
    const few = newId('integrator');
    const manyEndpoints = await endpoints(store, many, 11);
    await endpoints(store, few, 1);
    const [crowded, plain] = [anEvent(many), anEvent(few)];
    const outcomes = await Promise.all([store.recordEvent(crowded, t0), store.recordEvent(plain, t0), store.recordEvent(crowded, t0)]);
    expect(outcomes.map(counted)).toEqual([
      { recorded: true, deliveries: 11 },
      { recorded: true, deliveries: 1 },
      { recorded: false, deliveries: 0 },
    ]);
    expect(await deliveriesOf(crowded.id)).toEqual([...manyEndpoints].sort());
    expect(byId(outcomes[0]!.deliveries)).toEqual(await newDeliveriesOf(crowded.id));
    expect(outcomes[1]!.deliveries).toEqual(await newDeliveriesOf(plain.id));
  });

  it('an event no endpoint wants is recorded with no delivery', async () => {
    const store = new WebhooksStore(pool);
    const integratorId = newId('integrator');
    await endpoints(store, integratorId, 1, ['payment.failed']);
    const event = anEvent(integratorId);
    expect(await store.recordEvent(event, t0)).toEqual({ recorded: true, deliveries: [] });
    expect(await deliveriesOf(event.id)).toEqual([]);
  });
});
