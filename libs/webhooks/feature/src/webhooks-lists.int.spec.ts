import type { Pool } from 'pg';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { WEBHOOKS_MIGRATIONS } from './webhooks.module';
import { WebhooksStore } from './webhooks.store';

const t0 = Date.parse('2026-11-27T10:00:00.000Z');
let pool: Pool;
let store: WebhooksStore;

beforeAll(async () => {
  const url = await createTestDatabase('wh_lists');
  await runMigrations(url, [WEBHOOKS_MIGRATIONS]);
  pool = createPool(url, { max: 4, statementTimeoutMs: 60_000 });
  store = new WebhooksStore(pool);
});
afterAll(() => pool.end());

/**
 * Endpoints and events are listed newest first by created_at (the request's time, or the domain event's),
 * whatever order their rows were inserted in: concurrent creates take their advisory lock, and the relay
 * records an event late, out of that order. Pages neither skip nor repeat a row, ties included.
 */
describe('webhook lists order', () => {
  it('endpoints: newest first by created_at, equal times the later inserted first; every page size pages through once', async () => {
    const integratorId = newId('integrator');
    const offsets = [722, 744, 712, 742, 742, 721];
    const ids: string[] = [];
    for (const offset of offsets) {
      const id = newId('webhookEndpoint');
      ids.push(id);
      await store.createEndpoint({ id, integratorId, url: 'https://hooks.example/x', enabledEvents: ['*'], secret: 'whsec_x', status: 'enabled', disabledReason: null, createdAt: new Date(t0 + offset) });
    }
    const expected = [ids[1], ids[4], ids[3], ids[0], ids[5], ids[2]];
    expect((await store.listEndpoints(integratorId, 100)).data.map((e) => e.id)).toEqual(expected);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const list = await store.listEndpoints(integratorId, limit, cursor);
        seen.push(...list.data.map((e) => e.id));
        if (!list.has_more) break;
        cursor = list.data[list.data.length - 1]!.id;
      }
      expect({ limit, seen }).toEqual({ limit, seen: expected });
    }
  });

  it('events: newest first by created_at, an event recorded late among its own time; pages through once', async () => {
    const integratorId = newId('integrator');
    const offsets = [500, 900, 100, 900, 300];
    const ids: string[] = [];
    for (const offset of offsets) {
      const id = newId('event');
      ids.push(id);
      await store.recordEvent({ id, type: 'payment.succeeded', createdAt: new Date(t0 + offset).toISOString(), integratorId, objectId: newId('payment'), data: { object_version: 1 } }, new Date(t0 + 1000));
    }
    const expected = [ids[3], ids[1], ids[0], ids[4], ids[2]];
    const list = async (limit: number, startingAfter?: string) =>
      store.listEvents({ integratorId, limit, filters: { type: 'payment.succeeded' }, ...(startingAfter ? { startingAfter } : {}) });
    expect((await list(100)).data.map((e) => e.id)).toEqual(expected);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await list(2, cursor);
      seen.push(...answer.data.map((e) => e.id));
      if (!answer.has_more) break;
      cursor = answer.data[answer.data.length - 1]!.id;
    }
    expect(seen).toEqual(expected);
  });
});
