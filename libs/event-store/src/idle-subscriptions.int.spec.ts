import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Pool, QueryConfig } from 'pg';
import { createPool, runMigrations, startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';
import { CatchUpSubscription } from './catch-up-subscription';
import type { RecordedEvent } from './event-store';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';
import { COMMIT_TOKEN } from './postgres-statements';

/**
 * Subscriptions of an idle process: at each poll they read the store's commit token, one read shared
 * by all, and read their events only once events may have become readable. On a PostgreSQL of its own,
 * which the run's other test files do not append to.
 */
describe('idle subscriptions', () => {
  const POLL_MS = 20;
  const SUBSCRIPTIONS = 3;
  let dir: string;
  let database: RunningDatabase;
  const pools: Pool[] = [];
  const open = () => {
    const pool = createPool(database.url, { max: 4, statementTimeoutMs: 10_000 });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pay-idle-subscriptions-'));
    database = await startEmbeddedPostgres(dir);
    await runMigrations(database.url, [EVENT_STORE_MIGRATIONS]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
    await database?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  /** A subscription to the types under `prefix`, polling every POLL_MS, that adds the types it handles to `handled`. */
  const subscribe = (subscriptionId: string, store: PostgresEventStore, pool: Pool, prefix: string, handled: string[]) =>
    new CatchUpSubscription({
      subscriptionId,
      store,
      pool,
      typePrefixes: [prefix],
      pollIntervalMs: POLL_MS,
      onError: () => undefined,
      handle: async (events: RecordedEvent[]) => {
        handled.push(...events.map((event) => event.type));
      },
    });

  it('read no events while nothing commits, share one token read per poll, and read what another process appends', async () => {
    const pool = open();
    const store = new PostgresEventStore(pool);
    const prefix = `Idle${randomUUID().replace(/-/g, '')}.`;
    const handled = new Map<string, string[]>();
    const subscriptions = Array.from({ length: SUBSCRIPTIONS }, (_, i) => {
      const id = `idle.${i}`;
      handled.set(id, []);
      return subscribe(id, store, pool, prefix, handled.get(id)!);
    });
    const reads = jest.spyOn(store, 'readAllPage');
    const tokens = jest.spyOn(store, 'commitToken');
    const tokenStatements = jest.spyOn(pool, 'query');
    try {
      await Promise.all(subscriptions.map((subscription) => subscription.start()));
      await Promise.all(subscriptions.map((subscription) => subscription.catchUp()));
      // Each reads once more at its first poll (it has no token from before its last read yet).
      await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
      reads.mockClear();
      tokens.mockClear();
      tokenStatements.mockClear();

      await new Promise((resolve) => setTimeout(resolve, 50 * POLL_MS));
      expect(reads).not.toHaveBeenCalled();
      const tokenReads = tokenStatements.mock.calls.filter(([config]) => typeof config === 'object' && (config as QueryConfig).name === COMMIT_TOKEN.name).length;
      // About one per poll interval for the three: a subscription polls and finds the token another just read.
      expect(tokens.mock.calls.length).toBeGreaterThanOrEqual(SUBSCRIPTIONS * 10);
      expect(tokenReads).toBeGreaterThan(0);
      expect(tokenReads).toBeLessThan(tokens.mock.calls.length);

      // Another process's append wakes nothing here: the token moves, and each polls it in.
      const elsewhere = new PostgresEventStore(open());
      await elsewhere.appendToStream(`s-${randomUUID()}`, [{ type: `${prefix}Elsewhere`, data: {} }], { expectedRevision: 'no_stream' });
      await waitUntil(() => [...handled.values()].every((types) => types.includes(`${prefix}Elsewhere`)), 10_000);
      expect(reads).toHaveBeenCalled();
      await elsewhere.close();
    } finally {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      await store.close();
      reads.mockRestore();
      tokens.mockRestore();
      tokenStatements.mockRestore();
    }
  });

  it('stay idle while another database of the server commits, and read appends an open writer or an older transaction held back', async () => {
    const pool = open();
    // A read does not wait for an older writer here: what it leaves beyond the horizon is the token's to notice.
    const store = new PostgresEventStore(pool, { readAllWaitMs: 0 });
    const prefix = `Held${randomUUID().replace(/-/g, '')}.`;
    const handled: string[] = [];
    const subscription = subscribe(`held.${prefix}`, store, pool, prefix, handled);
    const neighbourUrl = new URL(database.url);
    neighbourUrl.pathname = '/neighbour';
    await pool.query('CREATE DATABASE neighbour');
    const neighbour = createPool(neighbourUrl.toString(), { max: 2, statementTimeoutMs: 10_000 });
    pools.push(neighbour);
    await neighbour.query('CREATE TABLE work (n int)');
    const reads = jest.spyOn(store, 'readAllPage');
    const writer = await open().connect();
    const older = await neighbour.connect();
    try {
      await subscription.start();
      await subscription.catchUp();
      await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
      reads.mockClear();

      // Another service's database on the same server: its commits move the server's snapshot, not this store's token.
      const until = Date.now() + 50 * POLL_MS;
      while (Date.now() < until) await neighbour.query('INSERT INTO work VALUES (1)');
      expect(reads).not.toHaveBeenCalled();

      // An append open across polls (its position taken, not yet committed) is read once it commits.
      await writer.query('BEGIN');
      await writer.query('INSERT INTO es_streams (stream_id, revision) VALUES ($1, 0)', [`s-${randomUUID()}`]);
      await writer.query(`INSERT INTO es_events (stream_id, revision, event_id, type, data) SELECT stream_id, 0, $1, $2, '{}' FROM es_streams ORDER BY ctid DESC LIMIT 1`, [randomUUID(), `${prefix}Open`]);
      await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
      expect(handled).toEqual([]);
      await writer.query('COMMIT');
      await waitUntil(() => handled.includes(`${prefix}Open`), 10_000);

      // An append committed while an older transaction runs (elsewhere on the server) is beyond the
      // horizon: read once that transaction ends, though nothing is appended after it.
      await older.query('BEGIN');
      await older.query('INSERT INTO work VALUES (2)');
      const elsewhere = new PostgresEventStore(open());
      await elsewhere.appendToStream(`s-${randomUUID()}`, [{ type: `${prefix}Held`, data: {} }], { expectedRevision: 'no_stream' });
      await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
      expect(handled).not.toContain(`${prefix}Held`);
      await older.query('COMMIT');
      await waitUntil(() => handled.includes(`${prefix}Held`), 10_000);
      await elsewhere.close();
    } finally {
      writer.release();
      older.release();
      await subscription.stop();
      await store.close();
      reads.mockRestore();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
