import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, sequentialScans } from '@pay/testing';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore, type FinishedAttempt } from './webhooks.store';

/**
 * The deliveries table starts empty and grows by thousands of rows a minute (every event times every
 * endpoint); its statistics follow when autovacuum gets to it. A plan kept from when it was small
 * would read every delivery to claim a few, or to record their attempts.
 */
const t0 = new Date('2026-11-22T10:00:00.000Z');
const SLOTS = 16;
const LEASE_MS = 30_000;

let pool: Pool;
/** Another session, for the bulk rows: its statements' plans are its own. */
let bulk: Pool;

beforeAll(async () => {
  const url = await createTestDatabase('wh_growth');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  // One connection: every statement below runs in the same session, with the plans it keeps.
  pool = createPool(url, { max: 1, statementTimeoutMs: 60_000 });
  bulk = createPool(url, { max: 1, statementTimeoutMs: 60_000 });
});
afterAll(async () => {
  await pool.end();
  await bulk.end();
});

describe('claiming and recording deliveries as the deliveries table grows', () => {
  it('finds the deliveries by their indexes after the table has grown past the statistics', async () => {
    const store = new WebhooksStore(pool);
    const integratorId = newId('integrator');
    const endpointId = newId('webhookEndpoint');
    await store.createEndpoint({ id: endpointId, integratorId, url: 'https://hooks.example/x', enabledEvents: ['*'], secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: t0 });
    const event = (): IntegrationEvent => ({ id: newId('event'), type: 'payment.succeeded', createdAt: t0.toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } });
    /** One event recorded, its delivery claimed, its attempt recorded as a success. */
    const deliverOne = async () => {
      await store.recordEvent(event(), t0);
      const { deliveries: claimed } = await store.claimDue(t0, 100, SLOTS, LEASE_MS);
      expect(claimed).toHaveLength(1);
      const finished: FinishedAttempt = {
        deliveryId: claimed[0]!.deliveryId,
        endpointId,
        attempt: { attemptedAt: t0, statusCode: 200, latencyMs: 3, error: null },
        next: { status: 'succeeded' },
        now: t0,
      };
      expect(await store.recordAttempts([finished])).toEqual([]);
    };

    await pool.query('ANALYZE wh_events, wh_deliveries');
    // PostgreSQL plans a named statement's first five runs for their values, then may keep a generic plan.
    for (let i = 0; i < 8; i++) await deliverOne();
    await bulk.query(
      `INSERT INTO wh_events (id, integrator_id, type, object_id, created_at, body)
       SELECT 'evt_bulk_' || g, $1, 'payment.succeeded', 'pay_bulk_' || g, $2, '{}' FROM generate_series(1, 20000) AS g`,
      [integratorId, t0],
    );
    await bulk.query(
      `INSERT INTO wh_deliveries (id, event_id, endpoint_id, origin, status, attempts, created_at)
       SELECT 'whd_bulk_' || g, 'evt_bulk_' || g, $1, 'event', 'succeeded', 1, $2 FROM generate_series(1, 20000) AS g`,
      [endpointId, t0],
    );
    const before = await sequentialScans(pool, 'wh_deliveries');
    await deliverOne();
    // One: PostgreSQL's own foreign-key check of the attempt's row (wh_attempts → wh_deliveries), whose
    // plan the session cached while the table was small, until the table's next ANALYZE (autovacuum's,
    // within a minute or so in service). Our statements add none.
    expect(await sequentialScans(pool, 'wh_deliveries')).toBe(before + 1);
  });
});
