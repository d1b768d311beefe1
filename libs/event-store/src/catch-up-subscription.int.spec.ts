import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { CatchUpSubscription, type CatchUpSubscriptionOptions } from './catch-up-subscription';
import { type RecordedEvent, START } from './event-store';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

let pool: Pool;
let store: PostgresEventStore;
const running: CatchUpSubscription[] = [];

beforeAll(async () => {
  const url = await createTestDatabase('es_sub');
  await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
  pool = createPool(url, { max: 8, statementTimeoutMs: 10_000 });
  store = new PostgresEventStore(pool);
  // The projection: a primary key on the event id, so a duplicate delivery fails loudly.
  await pool.query(`CREATE TABLE projected (event_id uuid PRIMARY KEY, subscription_id text NOT NULL, type text NOT NULL)`);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((subscription) => subscription.stop()));
});

afterAll(async () => {
  await store.close();
  await pool.end();
});

/** A test's own subscription id and type prefix, so tests do not see each other's events. */
const newScope = () => {
  const tag = randomUUID().replace(/-/g, '');
  return { subscriptionId: `test.${tag}`, prefix: `Sub${tag}.` };
};

const project = (subscriptionId: string) => async (events: RecordedEvent[], tx: PoolClient) => {
  for (const event of events) {
    await tx.query('INSERT INTO projected (event_id, subscription_id, type) VALUES ($1, $2, $3)', [event.id, subscriptionId, event.type]);
  }
};

const subscription = (options: Partial<CatchUpSubscriptionOptions> & Pick<CatchUpSubscriptionOptions, 'subscriptionId' | 'handle'>) => {
  const created = new CatchUpSubscription({ store, pool, onError: () => undefined, ...options });
  running.push(created);
  return created;
};

const append = async (prefix: string, ...names: string[]) => {
  for (const name of names) await store.appendToStream(`s-${randomUUID()}`, [{ type: `${prefix}${name}`, data: {} }], { expectedRevision: 'no_stream' });
};

const projectedTypes = async (subscriptionId: string, prefix: string): Promise<string[]> => {
  const { rows } = await pool.query<{ type: string }>('SELECT type FROM projected WHERE subscription_id = $1 ORDER BY type', [subscriptionId]);
  return rows.map((row) => row.type.slice(prefix.length));
};

const checkpointOf = async (subscriptionId: string) => {
  const { rows } = await pool.query<{ commit: string; prepare: string }>(
    'SELECT commit_position::text AS commit, prepare_position::text AS prepare FROM es_checkpoints WHERE subscription_id = $1',
    [subscriptionId],
  );
  return rows[0] ? { commit: BigInt(rows[0].commit), prepare: BigInt(rows[0].prepare) } : undefined;
};

describe('CatchUpSubscription', () => {
  it('is woken by appends of its own types only: other types cost it no read (it polls for them)', async () => {
    const { subscriptionId, prefix } = newScope();
    const other = newScope().prefix;
    const reads = jest.spyOn(store, 'readAllPage');
    try {
      const projection = subscription({ subscriptionId, typePrefixes: [prefix], pollIntervalMs: 3_600_000, handle: project(subscriptionId) });
      await projection.start();
      await waitUntil(async () => (await checkpointOf(subscriptionId)) !== undefined || reads.mock.calls.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const readsBefore = reads.mock.calls.length;
      await append(other, 'X1', 'X2', 'X3');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads.mock.calls.length).toBe(readsBefore);
      await append(prefix, 'Mine');
      await waitUntil(async () => (await projectedTypes(subscriptionId, prefix)).includes('Mine'));
      expect(reads.mock.calls.length).toBeGreaterThan(readsBefore);
    } finally {
      reads.mockRestore();
    }
  });

  it('projects events in batches, each with its checkpoint in one transaction', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'E1', 'E2', 'E3', 'E4', 'E5');
    const batches: number[] = [];
    const handle = project(subscriptionId);
    const projection = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      batchSize: 2,
      handle: async (events, tx) => {
        batches.push(events.length);
        await handle(events, tx);
      },
    });
    await projection.start();
    await projection.catchUp();

    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
    expect(batches).toEqual([2, 2, 1]);
    const last = (await store.readAll({ after: START, maxCount: 100, typePrefixes: [prefix] })).at(-1);
    expect(await checkpointOf(subscriptionId)).toEqual(last?.position);
  });

  it('resumes from its checkpoint after a restart: a new instance handles only the new events, none twice, none missed', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'E1', 'E2', 'E3');
    const first = subscription({ subscriptionId, typePrefixes: [prefix], handle: project(subscriptionId) });
    await first.start();
    await first.catchUp();
    await first.stop();

    await append(prefix, 'E4', 'E5');
    const handledBySecond: string[] = [];
    const projectIt = project(subscriptionId);
    const second = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      handle: async (events, tx) => {
        handledBySecond.push(...events.map((e) => e.type.slice(prefix.length)));
        await projectIt(events, tx);
      },
    });
    await second.start();
    await second.catchUp();

    expect(handledBySecond).toEqual(['E4', 'E5']);
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
  });

  it('rolls back a failing batch, reports the error, keeps its checkpoint, and does not pass the event while it fails', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'E1', 'Poison', 'E3');
    const errors: unknown[] = [];
    let poisonFails = true;
    const projectIt = project(subscriptionId);
    const projection = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      batchSize: 1,
      retryDelayMsMin: 20,
      retryDelayMsMax: 50,
      poisonAfterFailures: 1_000, // transient here: parking is the next test's subject
      onError: (error) => errors.push(error),
      handle: async (events, tx) => {
        // The batch's own writes happen before the failure: they must roll back.
        await projectIt(events, tx);
        if (poisonFails && events.some((e) => e.type.endsWith('Poison'))) throw new Error('handler failed');
      },
    });
    await projection.start();
    await expect(projection.catchUp()).rejects.toThrow('handler failed');

    const [e1] = await store.readAll({ after: START, maxCount: 1, typePrefixes: [prefix] });
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1']);
    expect(await checkpointOf(subscriptionId)).toEqual(e1?.position);

    // Retried with backoff, never past the failing event.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.length).toBeLessThan(12);
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1']);
    expect(await checkpointOf(subscriptionId)).toEqual(e1?.position);

    poisonFails = false;
    await eventuallyCaughtUp(projection);
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1', 'E3', 'Poison']);
  });

  it('separates transient failures (retried) from a poison event (parked with its error, reported, passed over)', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'A', 'Flaky', 'Poison', 'B');
    let flakyFailures = 0;
    const parked: string[] = [];
    const handle = project(subscriptionId);
    const projection = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      batchSize: 10,
      retryDelayMsMin: 1,
      retryDelayMsMax: 5,
      poisonAfterFailures: 3,
      onPoison: (event) => parked.push(event.type.slice(prefix.length)),
      handle: async (events, tx) => {
        for (const event of events) {
          if (event.type === `${prefix}Flaky` && flakyFailures < 2) {
            flakyFailures += 1;
            throw new Error('transient: try again');
          }
          if (event.type === `${prefix}Poison`) throw new Error('poison: this event can never be handled');
        }
        await handle(events, tx);
      },
    });
    await projection.start();
    for (let i = 0; i < 200 && (await projectedTypes(subscriptionId, prefix)).length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['A', 'B', 'Flaky']);
    expect(parked).toEqual(['Poison']);
    const { rows } = await pool.query('SELECT type, error FROM es_parked_events WHERE subscription_id = $1', [subscriptionId]);
    expect(rows).toEqual([{ type: `${prefix}Poison`, error: expect.stringContaining('poison: this event can never be handled') }]);
  });

  it('catchUp() resolves only after every event visible at call time has been handled, across many batches', async () => {
    const { subscriptionId, prefix } = newScope();
    const projection = subscription({ subscriptionId, typePrefixes: [prefix], batchSize: 7, pollIntervalMs: 60_000, handle: project(subscriptionId) });
    await projection.start();
    await projection.catchUp();

    await store.appendToStream(
      `bulk-${subscriptionId}`,
      Array.from({ length: 50 }, (_, i) => ({ type: `${prefix}${String(i).padStart(2, '0')}`, data: {} })),
      { expectedRevision: 'no_stream' },
    );
    await projection.catchUp();
    expect(await projectedTypes(subscriptionId, prefix)).toHaveLength(50);
  });

  it('catchUp() on a stopped subscription handles the visible events itself', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'E1', 'E2', 'E3');
    const projection = subscription({ subscriptionId, typePrefixes: [prefix], batchSize: 2, handle: project(subscriptionId) });
    await projection.catchUp();
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1', 'E2', 'E3']);
  });

  it('wakes on an append in this process without waiting for the poll interval', async () => {
    const { subscriptionId, prefix } = newScope();
    let handled!: () => void;
    const wasHandled = new Promise<void>((resolve) => (handled = resolve));
    const projection = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      pollIntervalMs: 60_000,
      handle: async (events) => {
        if (events.length > 0) handled();
      },
    });
    await projection.start();
    await projection.catchUp();
    const startedMs = Date.now();
    await append(prefix, 'E1');
    await wasHandled;
    expect(Date.now() - startedMs).toBeLessThan(5_000);
  });

  it('with wakesOnAppend false (a relay), an append waits for the poll interval, and catchUp() still reads at once', async () => {
    const { subscriptionId, prefix } = newScope();
    const relay = subscription({ subscriptionId, typePrefixes: [prefix], pollIntervalMs: 60_000, wakesOnAppend: false, handle: project(subscriptionId) });
    await relay.start();
    await relay.catchUp();
    await append(prefix, 'E1', 'E2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await projectedTypes(subscriptionId, prefix)).toEqual([]);
    await relay.catchUp();
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1', 'E2']);
  });

  it('stop() waits for the batch in flight to commit', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, 'E1');
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const projectIt = project(subscriptionId);
    const projection = subscription({
      subscriptionId,
      typePrefixes: [prefix],
      handle: async (events, tx) => {
        entered();
        await new Promise((resolve) => setTimeout(resolve, 100));
        await projectIt(events, tx);
      },
    });
    await projection.start();
    await inHandler;
    await projection.stop();
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['E1']);
    expect(await checkpointOf(subscriptionId)).not.toEqual(START);
  });

  it('two instances with the same id never both commit a batch: each event is projected once', async () => {
    const { subscriptionId, prefix } = newScope();
    await append(prefix, ...Array.from({ length: 30 }, (_, i) => String(i).padStart(2, '0')));
    const instances = [1, 2].map(() => subscription({ subscriptionId, typePrefixes: [prefix], batchSize: 3, retryDelayMsMin: 5, retryDelayMsMax: 20, handle: project(subscriptionId) }));
    await Promise.all(instances.map((instance) => instance.start()));
    await Promise.all(instances.map((instance) => eventuallyCaughtUp(instance)));
    expect(await projectedTypes(subscriptionId, prefix)).toHaveLength(30);
  });

  it('moves its checkpoint past events of other types, so a rare type is not a rescan of everything newer, and still handles the next event of its type', async () => {
    const { subscriptionId, prefix } = newScope();
    const others = newScope().prefix;
    await append(prefix, 'Mine1');
    const projection = subscription({ subscriptionId, handle: project(subscriptionId), typePrefixes: [prefix] });
    await projection.start();
    await projection.catchUp();
    const afterMine = await checkpointOf(subscriptionId);

    await append(others, 'A', 'B', 'C');
    const lastOther = (await store.readAll({ after: afterMine!, maxCount: 100, typePrefixes: [others] })).at(-1)!.position;
    // Passed over on a later read (at most one move a second): the checkpoint reaches the others' last event.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const at = await checkpointOf(subscriptionId);
      if (at && (at.commit > lastOther.commit || (at.commit === lastOther.commit && at.prepare >= lastOther.prepare))) break;
      await projection.catchUp();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const passed = (await checkpointOf(subscriptionId))!;
    expect(passed.commit > lastOther.commit || (passed.commit === lastOther.commit && passed.prepare >= lastOther.prepare)).toBe(true);

    await append(prefix, 'Mine2');
    await projection.catchUp();
    expect(await projectedTypes(subscriptionId, prefix)).toEqual(['Mine1', 'Mine2']);
  });

  it('bounds its batch size', () => {
    const handle = async () => undefined;
    expect(() => new CatchUpSubscription({ subscriptionId: 'x', store, pool, handle, batchSize: 1001 })).toThrow(RangeError);
    expect(() => new CatchUpSubscription({ subscriptionId: 'x', store, pool, handle, batchSize: 0 })).toThrow(RangeError);
  });
});

/** catchUp() rejects while a batch fails; once the handler recovers it resolves. */
async function eventuallyCaughtUp(projection: CatchUpSubscription, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await projection.catchUp();
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}

/** Polls `condition` every 20 ms until it holds; fails after 10 s (generous: CI machines are shared). */
async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
