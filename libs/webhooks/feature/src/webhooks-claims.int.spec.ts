import type { Pool } from 'pg';
import type { IntegrationEvent } from '@pay/contracts';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore } from './webhooks.store';

/**
 * The claims of several dispatchers (one per instance of the webhooks app) on one database: an
 * endpoint's slots are counted over every dispatcher's live leases.
 */
const SLOTS = 16;
const LEASE_MS = 30_000;
const t0 = new Date('2026-11-22T10:00:00.000Z');

/** A pool on a fresh database with the webhooks' tables. */
async function webhooksDatabase(label: string, max: number): Promise<Pool> {
  const url = await createTestDatabase(label);
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  return createPool(url, { max, statementTimeoutMs: 60_000 });
}

let pool: Pool;

beforeAll(async () => {
  pool = await webhooksDatabase('wh_claims', 10);
});
afterAll(() => pool.end());

/** An endpoint with `due` deliveries due at t0. */
async function endpointWithDue(store: WebhooksStore, due: number): Promise<string> {
  const integratorId = newId('integrator');
  const id = newId('webhookEndpoint');
  await store.createEndpoint({ id, integratorId, url: 'https://hooks.example/x', enabledEvents: ['*'], secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: t0 });
  for (let i = 0; i < due; i++) {
    const event: IntegrationEvent = { id: newId('event'), type: 'payment.succeeded', createdAt: t0.toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } };
    await store.recordEvent(event, t0);
  }
  return id;
}

/** The deliveries a claim took (up to 100, at most SLOTS per endpoint). */
const claim = async (store: WebhooksStore, finished?: string[]) => (await store.claimDue(t0, 100, SLOTS, LEASE_MS, finished)).deliveries;

const leased = async (endpointId: string) =>
  (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM wh_deliveries WHERE endpoint_id = $1 AND status = 'delivering' AND lease_until >= now()`, [endpointId])).rows[0]!.n;

describe('claims across dispatchers', () => {
  it("a second dispatcher finds an endpoint's slots taken by the first one's leases", async () => {
    const [first, second] = [new WebhooksStore(pool), new WebhooksStore(pool)];
    const endpoint = await endpointWithDue(first, 3 * SLOTS);
    expect(await claim(first)).toHaveLength(SLOTS);
    expect(await claim(second)).toHaveLength(0);
    expect(await leased(endpoint)).toBe(SLOTS);
  });

  it('eight dispatchers claiming at once take no more than the slots together, and each delivery once', async () => {
    const stores = Array.from({ length: 8 }, () => new WebhooksStore(pool));
    const endpoint = await endpointWithDue(stores[0]!, 3 * SLOTS);
    const claims = await Promise.all(stores.map((store) => claim(store)));
    const ids = claims.flat().map((claimed) => claimed.deliveryId);
    expect(ids).toHaveLength(SLOTS);
    expect(new Set(ids).size).toBe(SLOTS);
    expect(await leased(endpoint)).toBe(SLOTS);
  });

  it('a lease that expired frees its slot for any dispatcher', async () => {
    const store = new WebhooksStore(pool);
    const endpoint = await endpointWithDue(store, SLOTS + 2);
    expect(await claim(store)).toHaveLength(SLOTS);
    await pool.query(`UPDATE wh_deliveries SET lease_until = now() - interval '1 second' WHERE id = (SELECT id FROM wh_deliveries WHERE endpoint_id = $1 AND status = 'delivering' LIMIT 1)`, [endpoint]);
    // The expired one is free to claim again, and its slot counts as free: one claimed, never two.
    expect(await claim(new WebhooksStore(pool))).toHaveLength(1);
    expect(await leased(endpoint)).toBe(SLOTS);
  });

  it("a dispatcher's own finished attempts, leased until their record is written, hold no slot for it", async () => {
    const store = new WebhooksStore(pool);
    const endpoint = await endpointWithDue(store, SLOTS + 4);
    const first = await claim(store);
    expect(first).toHaveLength(SLOTS);
    // Three attempts are over (their records not written yet): three slots free for this dispatcher only.
    const finished = first.slice(0, 3).map((claimed) => claimed.deliveryId);
    expect(await claim(new WebhooksStore(pool))).toHaveLength(0);
    expect(await claim(store, finished)).toHaveLength(3);
    expect(await leased(endpoint)).toBe(SLOTS + 3);
  });

  it('refuses a bound that is not an integer and an id that is not a delivery id (both are written into the statement)', async () => {
    await expect(new WebhooksStore(pool).claimDue(t0, 1.5, SLOTS, LEASE_MS)).rejects.toThrow(RangeError);
    await expect(new WebhooksStore(pool).claimDue(t0, 1, SLOTS, LEASE_MS, ["whd_x'); DROP TABLE wh_deliveries; --"])).rejects.toThrow(RangeError);
  });
});

describe('what a claim leaves due (its own database: every live endpoint is probed)', () => {
  let own: Pool;
  beforeAll(async () => {
    own = await webhooksDatabase('wh_claims_left', 4);
  });
  afterAll(() => own.end());

  it('names the endpoints whose due deliveries were left for want of a slot: only their freed slots claim again', async () => {
    const store = new WebhooksStore(own);
    const [crowded, quiet] = [await endpointWithDue(store, SLOTS + 2), await endpointWithDue(store, 1)];
    const full = await store.claimDue(t0, 100, SLOTS, LEASE_MS);
    expect(full.deliveries).toHaveLength(SLOTS + 1);
    expect(full.dueLeft).toEqual([crowded]);
    // Two attempts over: their slots take the last two due, and nothing is left.
    const finished = full.deliveries.filter((claimed) => claimed.endpointId === crowded).slice(0, 2).map((claimed) => claimed.deliveryId);
    const rest = await store.claimDue(t0, 100, SLOTS, LEASE_MS, finished);
    expect(rest.deliveries).toHaveLength(2);
    expect(rest.dueLeft).toEqual([]);
    // A lease that expired is due again; a claim that may take none leaves it.
    await own.query(`UPDATE wh_deliveries SET lease_until = now() - interval '1 second' WHERE id = $1`, [finished[0]]);
    expect(await store.claimDue(t0, 0, SLOTS, LEASE_MS)).toEqual({ deliveries: [], dueLeft: [crowded] });
    await own.query(`UPDATE wh_endpoints SET deleted_at = $2 WHERE id = ANY ($1::text[])`, [[crowded, quiet], t0]);
  });

  it('leaves nothing for retries that fall due later, until the service clock reaches them', async () => {
    const store = new WebhooksStore(own);
    const endpoint = await endpointWithDue(store, 3);
    const later = new Date(t0.getTime() + 60_000);
    await own.query(`UPDATE wh_deliveries SET next_attempt_at = $2 WHERE id = (SELECT id FROM wh_deliveries WHERE endpoint_id = $1 LIMIT 1)`, [endpoint, later]);
    const claimed = await store.claimDue(t0, 100, SLOTS, LEASE_MS);
    expect(claimed.deliveries).toHaveLength(2);
    expect(claimed.dueLeft).toEqual([]);
    expect(await store.claimDue(later, 0, SLOTS, LEASE_MS)).toEqual({ deliveries: [], dueLeft: [endpoint] });
  });
});
