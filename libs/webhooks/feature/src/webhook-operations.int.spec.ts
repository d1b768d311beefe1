import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { HOUR_MS, newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { isFlagged, WebhookOperations } from './webhook-operations';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore } from './webhooks.store';

let pool: Pool;
let store: WebhooksStore;
let operations: WebhookOperations;
const t0 = new Date('2026-11-22T10:00:00.000Z');

beforeAll(async () => {
  const url = await createTestDatabase('wh_ops');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  pool = createPool(url, { max: 8, statementTimeoutMs: 60_000 /* the bulk insert of the plan test, on a loaded machine */ });
  store = new WebhooksStore(pool);
  operations = new WebhookOperations(pool);
});
afterAll(() => pool.end());

const endpoint = async (integratorId = newId('integrator')) => {
  const id = newId('webhookEndpoint');
  await store.createEndpoint({ id, integratorId, url: 'https://hooks.example/x', enabledEvents: ['*'], secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: t0 });
  return { id, integratorId };
};

/** An event to the integrator's endpoints, every delivery of it attempted once and failing: given up when `last`, else retrying. */
const failedEvent = async (integratorId: string, at: Date, { last = true } = {}): Promise<string> => {
  const event: IntegrationEvent = { id: newId('event'), type: 'payment.succeeded', createdAt: at.toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } };
  await store.recordEvent(event, at);
  const { rows } = await pool.query<{ id: string; endpoint_id: string }>(`SELECT id, endpoint_id FROM wh_deliveries WHERE event_id = $1`, [event.id]);
  for (const row of rows) {
    await pool.query(`UPDATE wh_deliveries SET status = 'delivering' WHERE id = $1`, [row.id]);
    await store.recordAttempt(
      { deliveryId: row.id, endpointId: row.endpoint_id },
      { attemptedAt: at, statusCode: 500, latencyMs: 3, error: 'status 500' },
      last ? { status: 'failed' } : { status: 'pending', nextAttemptAt: new Date(at.getTime() + 5_000) },
      at,
    );
  }
  return event.id;
};

const statusesOf = async (endpointId: string) =>
  (await pool.query<{ status: string }>('SELECT status FROM wh_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id', [endpointId])).rows.map((r) => r.status);

describe('failed deliveries', () => {
  it('lists given-up (failed) and still failing (retrying) deliveries, newest first, by endpoint, in cursor pages', async () => {
    const one = await endpoint();
    const failed = await failedEvent(one.integratorId, new Date(t0.getTime() + 1_000));
    const retrying = await failedEvent(one.integratorId, new Date(t0.getTime() + 2_000), { last: false });
    await store.recordEvent({ id: newId('event'), type: 'payment.succeeded', createdAt: t0.toISOString(), integratorId: one.integratorId, objectId: 'pay_untried', data: { object_version: 1 } }, t0);

    const page = await operations.failedDeliveries({ endpointId: one.id, limit: 10 });
    expect(page.data.map((d) => [d.eventId, d.status, d.attempts, d.lastError])).toEqual([
      [retrying, 'retrying', 1, 'status 500'],
      [failed, 'failed', 1, 'status 500'],
    ]);
    const first = await operations.failedDeliveries({ endpointId: one.id, limit: 1 });
    expect(first).toMatchObject({ has_more: true, data: [{ eventId: retrying }] });
    const second = await operations.failedDeliveries({ endpointId: one.id, limit: 1, startingAfter: first.data[0]!.deliveryId });
    expect(second).toMatchObject({ has_more: false, data: [{ eventId: failed }] });
    await expect(operations.failedDeliveries({ endpointId: one.id, limit: 1, startingAfter: 'whd_other' })).rejects.toMatchObject({ code: 'invalid_request', param: 'starting_after' });
    await expect(operations.failedDeliveries({ endpointId: 'we_missing', limit: 1 })).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});

describe('bulk redelivery', () => {
  it('reschedules each failed delivery once, now: a repeat finds none; an event already pending to the endpoint and a disabled endpoint are left alone', async () => {
    const live = await endpoint();
    const other = await endpoint(live.integratorId);
    await failedEvent(live.integratorId, t0);
    await failedEvent(live.integratorId, t0);
    // A failed delivery whose event the integrator already had sent again (pending): not a second one.
    const resent = await failedEvent(live.integratorId, t0);
    await store.redeliver(live.integratorId, resent, t0);
    await store.updateEndpoint(other.integratorId, other.id, { status: 'disabled' });

    const now = new Date(t0.getTime() + HOUR_MS);
    expect(await operations.redeliverFailed(live.id, now)).toBe(2);
    expect(await operations.redeliverFailed(live.id, now)).toBe(0);
    expect((await statusesOf(live.id)).sort()).toEqual(['failed', 'pending', 'pending', 'pending']);
    const { rows } = await pool.query<{ next_attempt_at: Date }>(`SELECT next_attempt_at FROM wh_deliveries WHERE endpoint_id = $1 AND origin = 'event' AND status = 'pending'`, [live.id]);
    expect(rows.map((r) => r.next_attempt_at.getTime())).toEqual([now.getTime(), now.getTime()]);
    // The disabled endpoint's failed deliveries stay failed (its pending one was canceled when it was disabled).
    expect((await statusesOf(other.id)).sort()).toEqual(['canceled', 'failed', 'failed', 'failed']);
  });

  it('concurrent calls reschedule each failed delivery once in all', async () => {
    const { id, integratorId } = await endpoint();
    for (let i = 0; i < 20; i++) await failedEvent(integratorId, t0);
    const counts = await Promise.all(Array.from({ length: 4 }, () => operations.redeliverFailed(id, t0)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(20);
  });
});

describe('failing endpoints', () => {
  it('enabled endpoints failing now, oldest failure first, flagged past one hour of the given clock', async () => {
    const older = await endpoint();
    const newer = await endpoint();
    await failedEvent(older.integratorId, t0, { last: false });
    await failedEvent(newer.integratorId, new Date(t0.getTime() + 30 * 60_000), { last: false });
    const listed = (await operations.failingEndpoints(1_000, new Date(t0.getTime() + HOUR_MS + 1))).filter((e) => [older.id, newer.id].includes(e.endpointId));
    expect(listed.map((e) => [e.endpointId, e.flagged])).toEqual([
      [older.id, true],
      [newer.id, false],
    ]);
    expect(isFlagged(t0, new Date(t0.getTime() + HOUR_MS))).toBe(false);
  });
});

describe('on realistic data (many delivered, one endpoint failing a lot)', () => {
  it('the failing lists read the partial indexes, never every delivery', async () => {
    const quiet = await endpoint();
    const broken = await endpoint();
    const fresh = await endpoint();
    await failedEvent(quiet.integratorId, t0);
    await failedEvent(fresh.integratorId, t0);
    // 50 000 delivered to the quiet endpoint, 10 000 failing to the broken one.
    await pool.query(
      `WITH ev AS (INSERT INTO wh_events (id, integrator_id, type, object_id, created_at, body)
         SELECT 'evt_bulk' || g, $1, 'payment.succeeded', 'pay_bulk' || g, $4, '{}' FROM generate_series(1, 60000) g RETURNING id)
       INSERT INTO wh_deliveries (id, event_id, endpoint_id, origin, status, attempts, created_at)
         SELECT 'whd_' || substr(id, 5), id, CASE WHEN substr(id, 9)::int <= 50000 THEN $2 ELSE $3 END, 'event',
                CASE WHEN substr(id, 9)::int <= 50000 THEN 'succeeded' ELSE 'failed' END, 1, $4 FROM ev`,
      [quiet.integratorId, quiet.id, broken.id, t0],
    );
    await pool.query('ANALYZE wh_deliveries; ANALYZE wh_endpoints; ANALYZE wh_events');
    const plan = async (sql: string, values: unknown[]) => (await pool.query(`EXPLAIN ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const list = `SELECT d.id FROM wh_deliveries d JOIN wh_endpoints e ON e.id = d.endpoint_id AND e.status = 'enabled' AND e.deleted_at IS NULL
      WHERE d.attempts > 0 AND d.status IN ('pending', 'delivering', 'failed')
        AND NOT EXISTS (SELECT 1 FROM wh_deliveries s WHERE s.event_id = d.event_id AND s.endpoint_id = d.endpoint_id AND s.status = 'succeeded')
      ORDER BY d.created_at DESC, d.id DESC LIMIT 11`;
    const everyEndpoint = await plan(list, []);
    expect(everyEndpoint).toContain('Index Scan using wh_deliveries_failing on wh_deliveries');
    const byEndpoint = list.replace('ORDER BY', 'AND d.endpoint_id = $1 ORDER BY');
    // An endpoint with few deliveries among many failing ones: its own index.
    expect(await plan(byEndpoint, [fresh.id])).toMatch(/Index (Only )?Scan using wh_deliveries_failing_by_endpoint/);
    // One with many delivered (its share misjudged from the whole table's statistics): at worst the failing ones are read.
    const quietPlan = await plan(byEndpoint, [quiet.id]);
    expect(quietPlan).toMatch(/Index (Only )?Scan using wh_deliveries_failing/);
    for (const text of [everyEndpoint, quietPlan]) expect(text).not.toContain('Seq Scan on wh_deliveries');
    expect((await operations.failedDeliveries({ endpointId: quiet.id, limit: 10 })).data).toHaveLength(1);
  }, 120_000);
});

describe('recordEvent', () => {
  const event = (integratorId: string): IntegrationEvent => ({ id: newId('event'), type: 'payment.succeeded', createdAt: t0.toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } });
  /** What a recording answered, with its deliveries counted. */
  const record = async (recorded: IntegrationEvent) => {
    const { deliveries, ...outcome } = await store.recordEvent(recorded, t0);
    return { ...outcome, deliveries: deliveries.length };
  };

  it('tells whether the event was new and how many deliveries it got (none to wake the dispatcher for when no endpoint wants it)', async () => {
    const one = await endpoint();
    await endpoint(one.integratorId);
    const recorded = event(one.integratorId);
    await expect(record(recorded)).resolves.toEqual({ recorded: true, deliveries: 2 });
    await expect(record(recorded)).resolves.toEqual({ recorded: false, deliveries: 0 });
    await expect(record(event(newId('integrator')))).resolves.toEqual({ recorded: true, deliveries: 0 });
  });

  it('past the delivery ids drawn for one statement, records every delivery in a transaction of its own', async () => {
    const many = await endpoint();
    for (let i = 1; i < 10; i++) await endpoint(many.integratorId);
    const recorded = event(many.integratorId);
    await expect(record(recorded)).resolves.toEqual({ recorded: true, deliveries: 10 });
    await expect(record(recorded)).resolves.toEqual({ recorded: false, deliveries: 0 });
    await expect(store.knownEventIds([recorded.id, 'evt_unknown'])).resolves.toEqual(new Set([recorded.id]));
  });
});
