import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { HOUR_MS, newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { WebhookOperations } from './webhook-operations';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore, type AfterAttempt } from './webhooks.store';

let pool: Pool;
let store: WebhooksStore;
let operations: WebhookOperations;
const t0 = new Date('2026-11-22T10:00:00.000Z');
const later = new Date(t0.getTime() + HOUR_MS);

beforeAll(async () => {
  const url = await createTestDatabase('wh_recover');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  pool = createPool(url, { max: 12, statementTimeoutMs: 60_000 });
  store = new WebhooksStore(pool);
  operations = new WebhookOperations(pool);
});
afterAll(() => pool.end());

const endpoint = async () => {
  const id = newId('webhookEndpoint');
  const integratorId = newId('integrator');
  await store.createEndpoint({ id, integratorId, url: 'https://hooks.example/x', enabledEvents: ['*'], secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: t0 });
  return { id, integratorId };
};

/** The endpoint's open (pending or in flight) deliveries, attempted once each with this outcome. */
const attemptOpen = async (endpointId: string, next: AfterAttempt): Promise<number> => {
  const { rows } = await pool.query<{ id: string }>(`UPDATE wh_deliveries SET status = 'delivering' WHERE endpoint_id = $1 AND status = 'pending' RETURNING id`, [endpointId]);
  for (const row of rows) {
    const statusCode = next.status === 'succeeded' ? 200 : 500;
    await store.recordAttempt({ deliveryId: row.id, endpointId }, { attemptedAt: later, statusCode, latencyMs: 3, error: statusCode === 200 ? null : 'status 500' }, next, later);
  }
  return rows.length;
};

/** An event whose delivery to the endpoint has failed for good. */
const failedEvent = async (integratorId: string, endpointId: string): Promise<string> => {
  const event: IntegrationEvent = { id: newId('event'), type: 'payment.succeeded', createdAt: t0.toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } };
  await store.recordEvent(event, t0);
  expect(await attemptOpen(endpointId, { status: 'failed' })).toBe(1);
  return event.id;
};

const openDeliveries = async (endpointId: string, eventId: string): Promise<number> =>
  (await pool.query(`SELECT 1 FROM wh_deliveries WHERE endpoint_id = $1 AND event_id = $2 AND status IN ('pending', 'delivering')`, [endpointId, eventId])).rowCount ?? 0;

describe('recover and bulk redelivery send an event the receiver has not acknowledged, once', () => {
  it('an event a later delivery delivered is not sent again by recover nor by the bulk redelivery, and is no longer listed as failed', async () => {
    const { id, integratorId } = await endpoint();
    const eventId = await failedEvent(integratorId, id);
    expect(await store.recover(id, t0, later)).toBe(1);
    expect(await attemptOpen(id, { status: 'succeeded' })).toBe(1);

    expect(await store.recover(id, t0, later)).toBe(0);
    expect(await operations.redeliverFailed(id, later)).toBe(0);
    expect(await operations.redeliverFailed(undefined, later)).toBe(0);
    expect(await openDeliveries(id, eventId)).toBe(0);
    expect((await operations.failedDeliveries({ endpointId: id, limit: 100 })).data).toEqual([]);
  });

  it('an explicit redelivery of that one event still sends it again', async () => {
    const { id, integratorId } = await endpoint();
    const eventId = await failedEvent(integratorId, id);
    expect(await store.recover(id, t0, later)).toBe(1);
    expect(await attemptOpen(id, { status: 'succeeded' })).toBe(1);
    expect(await store.redeliver(integratorId, eventId, later)).toBe(1);
    expect(await openDeliveries(id, eventId)).toBe(1);
  });

  it('concurrent recovers of one endpoint queue each event once in all', async () => {
    // Several rounds: the race is between one recover's read and another's insert.
    for (let round = 0; round < 5; round++) {
      const { id, integratorId } = await endpoint();
      const events = [await failedEvent(integratorId, id), await failedEvent(integratorId, id), await failedEvent(integratorId, id)];
      const counts = await Promise.all(Array.from({ length: 8 }, () => store.recover(id, t0, later)));
      expect({ round, queued: counts.reduce((a, b) => a + b, 0) }).toEqual({ round, queued: 3 });
      for (const eventId of events) expect(await openDeliveries(id, eventId)).toBe(1);
    }
  });

  it('recover, bulk redelivery and an explicit redelivery at once leave one open delivery of the event', async () => {
    const { id, integratorId } = await endpoint();
    const eventId = await failedEvent(integratorId, id);
    const results = await Promise.allSettled([
      store.recover(id, t0, later),
      operations.redeliverFailed(id, later),
      store.redeliver(integratorId, eventId, later),
      store.recover(id, t0, later),
      operations.redeliverFailed(undefined, later),
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await openDeliveries(id, eventId)).toBe(1);
  });
});
