import { APPEND_EVENTS_MAX, STREAM_LENGTH_MAX } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, sequentialScans } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { START } from './event-store';
import { describeEventStoreContract } from './event-store.contract';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { DuplicateEventIdError, PostgresEventStore } from './postgres-event-store';
import { READ_ALL, toPrefixPattern } from './postgres-statements';

const pools: Pool[] = [];

/** One migrated database per call; every pool made here is closed in afterAll. */
async function migratedPool(max = 5): Promise<Pool> {
  const url = await createTestDatabase('es');
  await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
  const pool = createPool(url, { max, statementTimeoutMs: 10_000 });
  pools.push(pool);
  return pool;
}

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

describeEventStoreContract('PostgreSQL', async () => {
  const store = new PostgresEventStore(await migratedPool());
  return { store, cleanup: () => store.close() };
});

describe('PostgresEventStore', () => {
  let pool: Pool;
  let store: PostgresEventStore;

  beforeAll(async () => {
    pool = await migratedPool();
    // Short: the tests below hold writers open, and other test files' readers wait for them.
    store = new PostgresEventStore(pool, { readAllWaitMs: 100 });
  });

  const newPrefix = () => `Pg${randomUUID().replace(/-/g, '')}.`;
  const readAllOf = (prefix: string) => store.readAll({ after: START, maxCount: 100, typePrefixes: [prefix] });

  it('is gap-free: an event committed later is never overtaken by events appended after it', async () => {
    const prefix = newPrefix();
    const held = await pool.connect();
    try {
      // The first writer takes the lower position and transaction id, then stays open.
      await held.query('BEGIN');
      await held.query(`INSERT INTO es_streams (stream_id, revision) VALUES ($1, 0)`, [`held-${prefix}`]);
      await held.query(`INSERT INTO es_events (stream_id, revision, event_id, type, data) VALUES ($1, 0, $2, $3, '{}')`, [
        `held-${prefix}`,
        randomUUID(),
        `${prefix}First`,
      ]);
      await store.appendToStream(`a-${prefix}`, [{ type: `${prefix}Second`, data: {} }], { expectedRevision: 'no_stream' });
      await store.appendToStream(`b-${prefix}`, [{ type: `${prefix}Third`, data: {} }], { expectedRevision: 'no_stream' });

      // A reader by position alone would return Second and Third now and skip First for ever.
      expect(await readAllOf(prefix)).toEqual([]);

      await held.query('COMMIT');
    } finally {
      held.release();
    }
    const all = await readAllOf(prefix);
    expect(all.map((e) => e.type.slice(prefix.length))).toEqual(['First', 'Second', 'Third']);
  });

  it('readAll waits for an older open writer that commits soon, then returns its events first', async () => {
    const prefix = newPrefix();
    const held = await pool.connect();
    try {
      await held.query('BEGIN');
      await held.query(`INSERT INTO es_streams (stream_id, revision) VALUES ($1, 0)`, [`held-${prefix}`]);
      await held.query(`INSERT INTO es_events (stream_id, revision, event_id, type, data) VALUES ($1, 0, $2, $3, '{}')`, [
        `held-${prefix}`,
        randomUUID(),
        `${prefix}First`,
      ]);
      await store.appendToStream(`a-${prefix}`, [{ type: `${prefix}Second`, data: {} }], { expectedRevision: 'no_stream' });
      const reading = new PostgresEventStore(pool, { readAllWaitMs: 5_000 }).readAll({ after: START, maxCount: 100, typePrefixes: [prefix] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await held.query('COMMIT');
      expect((await reading).map((e) => e.type.slice(prefix.length))).toEqual(['First', 'Second']);
    } finally {
      held.release();
    }
  });

  it('calls onAppended listeners once the append is readable by readAll, not while an older writer is open', async () => {
    const prefix = newPrefix();
    const held = await pool.connect();
    let calls = 0;
    const typesSeen = new Set<string>();
    const unsubscribe = store.onAppended((types) => {
      calls += 1;
      for (const type of types ?? []) typesSeen.add(type);
    });
    try {
      await held.query('BEGIN');
      await held.query('SELECT pg_current_xact_id()');
      await store.appendToStream(`n-${prefix}`, [{ type: `${prefix}Appended`, data: {} }], { expectedRevision: 'no_stream' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBe(0);
      await held.query('COMMIT');
      await waitFor(() => calls > 0);
      expect((await readAllOf(prefix)).map((e) => e.type)).toEqual([`${prefix}Appended`]);
      // With the types appended: a subscription reading other types is not woken.
      expect(typesSeen.has(`${prefix}Appended`)).toBe(true);
    } finally {
      unsubscribe();
      held.release();
    }
  });

  it('rejects a duplicate event id, in another stream too, and appends nothing', async () => {
    const id = randomUUID();
    await store.appendToStream(`dup-${id}`, [{ id, type: 'A', data: {} }], { expectedRevision: 'no_stream' });
    const other = `dup-other-${id}`;
    await expect(store.appendToStream(other, [{ id, type: 'B', data: {} }], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
      DuplicateEventIdError,
    );
    await expect(store.readStream(other)).resolves.toEqual([]);
    // The stream row rolled back with the events: the stream can still be created.
    await expect(store.appendToStream(other, [{ type: 'B', data: {} }], { expectedRevision: 'no_stream' })).resolves.toMatchObject({
      nextExpectedRevision: 0n,
    });
  });

  it('appends many events in one statement, in order, with consecutive revisions', async () => {
    const streamId = `bulk-${randomUUID()}`;
    const events = Array.from({ length: 500 }, (_, i) => ({ type: 'Bulk', data: { i } }));
    const queries = jest.spyOn(pool, 'query');
    try {
      const result = await store.appendToStream(streamId, events, { expectedRevision: 'no_stream' });
      expect(queries).toHaveBeenCalledTimes(1);
      expect(result.nextExpectedRevision).toBe(499n);
    } finally {
      queries.mockRestore();
    }
    const read = await store.readStream(streamId);
    expect(read.map((e) => (e.data as { i: number }).i)).toEqual(events.map((_, i) => i));
    expect(read.map((e) => e.revision)).toEqual(events.map((_, i) => BigInt(i)));
  });

  it('gives new events time-ordered ids (UUIDv7), so that the index on event ids grows at its end', async () => {
    const streamId = `ids-${randomUUID()}`;
    await store.appendToStream(streamId, [{ type: 'First', data: {} }, { type: 'Second', data: {} }], { expectedRevision: 'no_stream' });
    await store.appendToStream(streamId, [{ type: 'Third', data: {} }], { expectedRevision: 1n });
    const ids = (await store.readStream(streamId)).map((event) => event.id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time of the append, in ms.
    const msOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(msOf(ids[0]!) - Date.now())).toBeLessThan(60_000);
  });

  it('keeps positions exact as bigints (commit is the transaction id, prepare the row position)', async () => {
    const { position } = await store.appendToStream(`pos-${randomUUID()}`, [{ type: 'P', data: {} }], { expectedRevision: 'no_stream' });
    const { rows } = await pool.query<{ commit: string; prepare: string }>(
      `SELECT transaction_id::text AS commit, position::text AS prepare FROM es_events ORDER BY position DESC LIMIT 1`,
    );
    expect(position).toEqual({ commit: BigInt(rows[0]?.commit ?? -1), prepare: BigInt(rows[0]?.prepare ?? -1) });
  });

  describe('appends submitted together (group commit)', () => {
    it('writes appends to several streams in one transaction, in the order they were submitted, each with its revisions', async () => {
      const prefix = newPrefix();
      const existing = `grp-existing-${prefix}`;
      await store.appendToStream(existing, [{ type: `${prefix}Opened`, data: {} }], { expectedRevision: 'no_stream' });
      const results = await Promise.all([
        store.appendToStream(`grp-a-${prefix}`, [{ type: `${prefix}A`, data: {} }, { type: `${prefix}A`, data: { second: true } }], { expectedRevision: 'no_stream' }),
        store.appendToStream(existing, [{ type: `${prefix}Moved`, data: {} }], { expectedRevision: 0n }),
        store.appendToStream(`grp-b-${prefix}`, [{ type: `${prefix}B`, data: {} }], { expectedRevision: 'no_stream' }),
      ]);
      expect(results.map((result) => result.nextExpectedRevision)).toEqual([1n, 1n, 0n]);
      // One transaction (the commit part of a position is its id), positions in the order submitted.
      expect(new Set(results.map((result) => result.position.commit)).size).toBe(1);
      const prepares = results.map((result) => result.position.prepare);
      expect([...prepares].sort((x, y) => (x < y ? -1 : 1))).toEqual(prepares);
      expect((await readAllOf(prefix)).map((event) => `${event.streamId}@${event.revision}`)).toEqual([
        `${existing}@0`,
        `grp-a-${prefix}@0`,
        `grp-a-${prefix}@1`,
        `${existing}@1`,
        `grp-b-${prefix}@0`,
      ]);
    });

    it('refuses only the appends whose expectation fails; the others of the group are written', async () => {
      const prefix = newPrefix();
      const existing = `grp-stale-${prefix}`;
      await store.appendToStream(existing, [{ type: `${prefix}Opened`, data: {} }], { expectedRevision: 'no_stream' });
      const outcomes = await Promise.allSettled([
        store.appendToStream(existing, [{ type: `${prefix}Stale`, data: {} }], { expectedRevision: 5n }),
        store.appendToStream(existing.replace('stale', 'new'), [{ type: `${prefix}New`, data: {} }], { expectedRevision: 'no_stream' }),
        store.appendToStream(existing, [{ type: `${prefix}Again`, data: {} }], { expectedRevision: 'no_stream' }),
        store.appendToStream(`grp-missing-${prefix}`, [{ type: `${prefix}Missing`, data: {} }], { expectedRevision: 0n }),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'rejected']);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason.name)).toEqual([
        'WrongExpectedRevisionError',
        'WrongExpectedRevisionError',
        'WrongExpectedRevisionError',
      ]);
      expect((await readAllOf(prefix)).map((event) => event.type)).toEqual([`${prefix}Opened`, `${prefix}New`]);
    });

    it('of two appends to one stream in a group, the second is decided after the first: expecting the same revision, exactly one wins', async () => {
      const streamId = `grp-same-${randomUUID()}`;
      const [first, second, third] = await Promise.allSettled([
        store.appendToStream(streamId, [{ type: 'One', data: {} }], { expectedRevision: 'no_stream' }),
        store.appendToStream(streamId, [{ type: 'Two', data: {} }], { expectedRevision: 0n }),
        store.appendToStream(streamId, [{ type: 'Three', data: {} }], { expectedRevision: 0n }),
      ]);
      expect([first.status, second.status, third.status]).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect((await store.readStream(streamId)).map((event) => event.type)).toEqual(['One', 'Two']);
    });

    it('an event id already used fails its own append only: the others of its group are written', async () => {
      const id = randomUUID();
      await store.appendToStream(`grp-dup-${id}`, [{ id, type: 'A', data: {} }], { expectedRevision: 'no_stream' });
      const [reused, fine] = await Promise.allSettled([
        store.appendToStream(`grp-dup-again-${id}`, [{ id, type: 'B', data: {} }], { expectedRevision: 'no_stream' }),
        store.appendToStream(`grp-dup-fine-${id}`, [{ type: 'C', data: {} }], { expectedRevision: 'no_stream' }),
      ]);
      expect(reused.status === 'rejected' && reused.reason).toBeInstanceOf(DuplicateEventIdError);
      expect(fine.status).toBe('fulfilled');
      await expect(store.readStream(`grp-dup-again-${id}`)).resolves.toEqual([]);
      expect((await store.readStream(`grp-dup-fine-${id}`)).map((event) => event.type)).toEqual(['C']);
    });
  });

  describe('streams read together (grouped reads)', () => {
    it('reads the streams asked for in one turn in one statement, each caller getting its own', async () => {
      const id = randomUUID();
      await store.appendToStream(`read-a-${id}`, [{ type: 'A1', data: {} }, { type: 'A2', data: {} }], { expectedRevision: 'no_stream' });
      await store.appendToStream(`read-b-${id}`, [{ type: 'B1', data: {} }], { expectedRevision: 'no_stream' });
      const query = jest.spyOn(pool, 'query');
      const reads = await Promise.all([`read-a-${id}`, `read-missing-${id}`, `read-b-${id}`, `read-a-${id}`].map((streamId) => store.readStream(streamId)));
      const statements = query.mock.calls.map(([config]) => (config as { name?: string }).name).filter((name) => name?.startsWith('es_read_stream'));
      query.mockRestore();
      expect(statements).toEqual(['es_read_streams']);
      expect(reads.map((events) => events.map((event) => `${event.streamId}@${event.revision}:${event.type}`))).toEqual([
        [`read-a-${id}@0:A1`, `read-a-${id}@1:A2`],
        [],
        [`read-b-${id}@0:B1`],
        [`read-a-${id}@0:A1`, `read-a-${id}@1:A2`],
      ]);
    });

    it(`fails only the reader of a stream longer than ${STREAM_LENGTH_MAX} events; the others of its group are answered`, async () => {
      const long = `read-long-${randomUUID()}`;
      for (let appended = 0; appended <= STREAM_LENGTH_MAX; appended += APPEND_EVENTS_MAX) {
        const count = Math.min(APPEND_EVENTS_MAX, STREAM_LENGTH_MAX + 1 - appended);
        await store.appendToStream(long, Array.from({ length: count }, () => ({ type: 'Long', data: {} })), { expectedRevision: 'any' });
      }
      const short = `read-short-${randomUUID()}`;
      await store.appendToStream(short, [{ type: 'Short', data: {} }], { expectedRevision: 'no_stream' });
      const [tooLong, fine] = await Promise.allSettled([store.readStream(long), store.readStream(short)]);
      expect(tooLong.status === 'rejected' && (tooLong.reason as Error).message).toBe(`stream ${long} is longer than ${STREAM_LENGTH_MAX} events`);
      expect(fine.status === 'fulfilled' && fine.value.map((event) => event.type)).toEqual(['Short']);
    });
  });

  it('bounds appends and reads', async () => {
    await expect(store.appendToStream(`empty-${randomUUID()}`, [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(RangeError);
    await expect(store.appendToStream(`neg-${randomUUID()}`, [{ type: 'A', data: {} }], { expectedRevision: -1n })).rejects.toBeInstanceOf(RangeError);
    await expect(store.readAll({ after: START, maxCount: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.readAll({ after: START, maxCount: 1001 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('readAll on a large store', () => {
  /** 50,000 events of type Bulk.Happened, one per stream, in one statement. */
  const insertBulkEvents = (pool: Pool) =>
    pool.query(
      `INSERT INTO es_events (stream_id, revision, event_id, type, data)
       SELECT 'bulk-' || g, 0, gen_random_uuid(), 'Bulk.Happened', '{}' FROM generate_series(1, 50000) AS g`,
    );
  /** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
  const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    Plans?: PlanNode[];
  }

  // The horizon (the snapshot's xmin) is known only when the statement runs: planned as a third of the
  // table, the look past it for a type that never occurs was a sequential scan of every event
  // (0.6 s a read at 300,000 payments, every new connection's first reads).
  it('reads through the global order index, for a type that never occurred too', async () => {
    const pool = await migratedPool();
    await insertBulkEvents(pool);
    await pool.query('ANALYZE es_events');
    // A subscription that has caught up: its checkpoint is the last event.
    const { rows: last } = await pool.query<{ commit: string; prepare: string }>(
      'SELECT transaction_id::text AS commit, position::text AS prepare FROM es_events ORDER BY transaction_id DESC, position DESC LIMIT 1',
    );
    const plans = async (prefixes: string[]) => {
      const explain = (options: string, values: unknown[]) =>
        pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${options}) ${READ_ALL.text}`, values).then(({ rows }) => rows[0]!['QUERY PLAN'][0].Plan);
      return {
        custom: await explain('FORMAT JSON', [last[0]!.commit, last[0]!.prepare, 100, prefixes.map(toPrefixPattern)]),
        generic: await explain('GENERIC_PLAN, FORMAT JSON', []),
      };
    };
    for (const prefixes of [['Never.'], ['Bulk.'], []]) {
      for (const [kind, plan] of Object.entries(await plans(prefixes))) {
        const scans = nodesOf(plan).filter((node) => node['Relation Name'] === 'es_events' && !node['Node Type'].startsWith('Index'));
        expect({ kind, prefixes, scans: scans.map((node) => node['Node Type']) }).toEqual({ kind, prefixes, scans: [] });
      }
    }
  });

  // A service starts on an empty store that then grows by thousands of events a minute; the statistics
  // follow when autovacuum gets to it. A plan kept from when the store was small scanned every event.
  it('reads through the index after the store has grown past the statistics its plans were made with', async () => {
    // One connection: every read below runs in the same session, with the plans it keeps.
    const pool = await migratedPool(1);
    const store = new PostgresEventStore(pool, { readAllWaitMs: 0 });
    // Statistics of a small store: 200 events.
    const small = Array.from({ length: 200 }, () => ({ type: 'Bulk.Happened', data: {} }));
    await store.appendToStream('small', small, { expectedRevision: 'no_stream' });
    await pool.query('ANALYZE es_events');
    // PostgreSQL plans a named statement's first five runs for their values, then may keep a generic plan.
    for (let i = 0; i < 8; i++) await store.readAllPage({ after: START, maxCount: 100, typePrefixes: ['Never.'] });
    await insertBulkEvents(pool);
    const { scannedTo } = await store.readAllPage({ after: START, maxCount: 100, typePrefixes: ['Never.'] });
    const before = await sequentialScans(pool, 'es_events');
    for (const typePrefixes of [['Never.'], ['Bulk.'], []]) await store.readAllPage({ after: scannedTo!, maxCount: 100, typePrefixes });
    expect(await sequentialScans(pool, 'es_events')).toBe(before);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
