import { InProcessBus } from '@pay/bus';
import { OffsetClock } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { CatchUpSubscription } from './catch-up-subscription';
import { ContextRuntime } from './context-runtime';
import type { RecordedEvent } from './event-store';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

/**
 * A payments runtime with one projection of the events of `prefix` into `projected` (a row per event),
 * and the `caughtUp` its handlers are given.
 */
const projectingRuntime = (pool: Pool, store: PostgresEventStore, subscriptionId: string, prefix: string) => {
  let caughtUp: (id: string) => Promise<void> = () => Promise.reject(new Error('not started'));
  const runtime = new ContextRuntime(
    {
      app: 'payments',
      subscriptions: [
        {
          kind: 'projection',
          id: subscriptionId,
          typePrefixes: [prefix],
          handle: async (events: RecordedEvent[], tx: PoolClient) => {
            for (const event of events) await tx.query('INSERT INTO projected (event_id, type) VALUES ($1, $2)', [event.id, event.type]);
          },
        },
      ],
      handlers: (given) => {
        caughtUp = given;
        return {};
      },
    },
    { store, bus: new InProcessBus(), clock: new OffsetClock(), pool },
  );
  return { runtime, caughtUp: (id: string) => caughtUp(id) };
};

/**
 * Issue 20: two instances of an app run its subscriptions in one instance at a time. Each instance
 * has its own pool and store on the app's one database, as two processes would.
 */
describe('ContextRuntime with two instances of one app', () => {
  let url: string;
  const pools: Pool[] = [];
  const stores: PostgresEventStore[] = [];
  const runtimes: ContextRuntime[] = [];

  beforeAll(async () => {
    url = await createTestDatabase('es_runtime');
    await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
    const pool = createPool(url, { max: 2, statementTimeoutMs: 10_000 });
    // No primary key: a doubled projection shows as two rows instead of a failed batch.
    await pool.query('CREATE TABLE projected (event_id uuid NOT NULL, type text NOT NULL)');
    await pool.end();
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((runtime) => runtime.onApplicationShutdown()));
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(pools.map((pool) => pool.end()));
  });

  const prefix = `Rt${randomUUID().replace(/-/g, '')}.`;
  const subscriptionId = 'payments.test-views';
  const errors: string[] = [];

  /** One instance: its own pool, store, bus; answers the runtime and its `caughtUp`. */
  const instance = () => {
    const pool = createPool(url, { max: 6, statementTimeoutMs: 10_000 });
    const store = new PostgresEventStore(pool);
    pools.push(pool);
    stores.push(store);
    const { runtime, caughtUp } = projectingRuntime(pool, store, subscriptionId, prefix);
    runtimes.push(runtime);
    // Errors logged by the runtime would show a CheckpointMovedError counted as a failure.
    (runtime as unknown as { logger: { error(m: string): void; warn(m: string): void } }).logger = {
      error: (message: string) => void errors.push(message),
      warn: (message: string) => void errors.push(message),
    };
    return { runtime, store, catchUp: () => caughtUp(subscriptionId) };
  };

  const append = (store: PostgresEventStore, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => store.appendToStream(`rt-${randomUUID()}`, [{ type: `${prefix}E${i}`, data: {} }], { expectedRevision: 'no_stream' })));

  const counts = async () => {
    const { rows } = await pools[0]!.query<{ events: string; rows: string }>('SELECT count(DISTINCT event_id)::text AS events, count(*)::text AS rows FROM projected');
    return { events: Number(rows[0]!.events), rows: Number(rows[0]!.rows) };
  };
  const parked = async () => Number((await pools[0]!.query<{ n: string }>('SELECT count(*)::text AS n FROM es_parked_events')).rows[0]!.n);

  it('projects each event once, parks none; catchUp() on the instance not running it resolves once the other has projected; when the holder stops the other takes over', async () => {
    const a = instance();
    const b = instance();
    await a.runtime.onModuleInit();
    await b.runtime.onModuleInit();

    // Writes land on both instances; each reads its own writes through its own catchUp().
    for (let round = 0; round < 5; round++) {
      await append(a.store, 20);
      await b.catchUp();
      expect((await counts()).events).toBe((round + 1) * 40 - 20);
      await append(b.store, 20);
      await a.catchUp();
      expect((await counts()).events).toBe((round + 1) * 40);
    }
    expect(await counts()).toEqual({ events: 200, rows: 200 });

    // The holder stops (a rolling restart's SIGTERM): the other takes over and projects what follows.
    await a.runtime.onApplicationShutdown();
    await append(b.store, 30);
    await b.catchUp();
    expect(await counts()).toEqual({ events: 230, rows: 230 });

    expect(await parked()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('a batch another instance committed first (CheckpointMovedError) is no failure: never counted toward poison, never parked, no waiter rejected', async () => {
    // Two instances running one subscription at once, without the lock (a hand-over's overlap, at its worst).
    const id = `test.race-${randomUUID()}`;
    const racePrefix = `Race${randomUUID().replace(/-/g, '')}.`;
    const failures: unknown[] = [];
    const both = [0, 1].map(
      (i) =>
        new CatchUpSubscription({
          subscriptionId: id,
          store: stores[i]!,
          pool: pools[i]!,
          typePrefixes: [racePrefix],
          batchSize: 5,
          poisonAfterFailures: 1,
          onError: (error) => void failures.push(error),
          onPoison: (event) => void failures.push(event),
          handle: async (events, tx) => {
            for (const event of events) await tx.query('INSERT INTO projected (event_id, type) VALUES ($1, $2)', [event.id, event.type]);
          },
        }),
    );
    // One after the other: two first loads at once race in loadCheckpoint's INSERT … ON CONFLICT (reported).
    for (const subscription of both) {
      await subscription.start();
      await subscription.catchUp();
    }
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => stores[round % 2]!.appendToStream(`race-${randomUUID()}`, [{ type: `${racePrefix}E${i}`, data: {} }], { expectedRevision: 'no_stream' })));
      await Promise.all(both.map((subscription) => subscription.catchUp()));
    }
    await Promise.all(both.map((subscription) => subscription.stop()));
    const { rows } = await pools[0]!.query<{ events: string; rows: string }>(
      'SELECT count(DISTINCT event_id)::text AS events, count(*)::text AS rows FROM projected WHERE type LIKE $1',
      [`${racePrefix}%`],
    );
    expect(rows[0]).toEqual({ events: '100', rows: '100' });
    expect(failures).toEqual([]);
    expect(Number((await pools[0]!.query<{ n: string }>('SELECT count(*)::text AS n FROM es_parked_events WHERE subscription_id = $1', [id])).rows[0]!.n)).toBe(0);
  }, 60_000);
});

describe("ContextRuntime's projections", () => {
  let pool: Pool;
  let store: PostgresEventStore;
  let runtime: ContextRuntime;
  let caughtUp: (id: string) => Promise<void>;
  const prefix = `Poll${randomUUID().replace(/-/g, '')}.`;
  const subscriptionId = 'payments.poll-views';

  beforeAll(async () => {
    const url = await createTestDatabase('es_runtime_poll');
    await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
    pool = createPool(url, { max: 6, statementTimeoutMs: 10_000 });
    await pool.query('CREATE TABLE projected (event_id uuid NOT NULL, type text NOT NULL)');
    store = new PostgresEventStore(pool);
    ({ runtime, caughtUp } = projectingRuntime(pool, store, subscriptionId, prefix));
    await runtime.onModuleInit();
  });
  afterAll(async () => {
    await runtime.onApplicationShutdown();
    await store.close();
    await pool.end();
  });

  it('read by the poll interval, many events a batch, not a batch per append; catchUp() still sees every event committed before it', async () => {
    // One create after another, as requests at a moderate rate: each append awaited before the next.
    for (let i = 0; i < 30; i++) await store.appendToStream(`poll-${randomUUID()}`, [{ type: `${prefix}E${i}`, data: {} }], { expectedRevision: 'no_stream' });
    await caughtUp(subscriptionId);
    const { rows } = await pool.query<{ events: string; batches: string }>(
      // Rows written by one batch share its transaction id.
      'SELECT count(*)::text AS events, count(DISTINCT xmin::text)::text AS batches FROM projected WHERE type LIKE $1',
      [`${prefix}%`],
    );
    expect(Number(rows[0]!.events)).toBe(30);
    // Woken by each append, the view took a batch for nearly every one of them.
    expect(Number(rows[0]!.batches)).toBeLessThanOrEqual(5);
  }, 60_000);
});
