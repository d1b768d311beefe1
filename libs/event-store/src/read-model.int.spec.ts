import { createPool } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import type { Pool, PoolClient } from 'pg';
import type { RecordedEvent } from './event-store';
import { columns } from '@pay/platform';
import { eachRow, projectForward, type ViewProjection } from './read-model';

type CounterEvent = { type: 'CounterOpened'; counterId: string } | { type: 'CounterAdded'; counterId: string; by: number };
type Counter = { status: 'none' } | { status: 'open'; total: number };

/**
 * A view whose rows count their writes: how many times a batch wrote each object. Its creations are
 * inserted by one set-based statement; its updates too when they follow the state alone (one row per
 * object), one statement per event otherwise.
 */
const counterView = (updateFromStateOnly: boolean): ViewProjection<CounterEvent, Counter, 'CounterOpened'> => ({
  name: 'counter',
  table: 'counter_views',
  idColumn: 'counter_id',
  decider: {
    initialState: { status: 'none' },
    evolve: (state, event) => (event.type === 'CounterOpened' ? { status: 'open', total: 0 } : { status: 'open', total: (state.status === 'open' ? state.total : 0) + event.by }),
  },
  idOf: (event) => event.counterId,
  createdBy: 'CounterOpened',
  insert: async (tx, rows) => {
    await tx.query(
      'INSERT INTO counter_views (counter_id, state, revision) SELECT * FROM unnest($1::text[], $2::jsonb[], $3::bigint[]) ON CONFLICT (counter_id) DO NOTHING',
      columns(rows, ({ event, state, revision }) => [event.counterId, JSON.stringify(state), revision]),
    );
  },
  update: updateFromStateOnly
    ? async (tx, rows) => {
        await tx.query(
          `UPDATE counter_views v SET state = r.state, revision = r.revision, writes = writes + 1
           FROM unnest($1::text[], $2::jsonb[], $3::bigint[]) AS r (counter_id, state, revision) WHERE v.counter_id = r.counter_id AND v.revision < r.revision`,
          columns(rows, ({ event, state, revision }) => [event.counterId, JSON.stringify(state), revision]),
        );
      }
    : eachRow(async (tx, { event, state, revision }) => {
        await tx.query('UPDATE counter_views SET state = $2, revision = $3, writes = writes + 1 WHERE counter_id = $1 AND revision < $3', [
          event.counterId,
          JSON.stringify(state),
          revision,
        ]);
      }),
  updateFromStateOnly,
});

let revisions = new Map<string, bigint>();
const recorded = (event: CounterEvent): RecordedEvent => {
  const revision = revisions.get(event.counterId) ?? 0n;
  revisions.set(event.counterId, revision + 1n);
  return { id: `${event.counterId}-${revision}`, streamId: event.counterId, revision, position: { commit: 1n, prepare: revision }, type: event.type, data: event, metadata: {}, createdAt: new Date() };
};
const opened = (counterId: string) => recorded({ type: 'CounterOpened', counterId });
const added = (counterId: string, by: number) => recorded({ type: 'CounterAdded', counterId, by });

describe('projectForward', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = createPool(await createTestDatabase('read_model'), { max: 2, statementTimeoutMs: 10_000 });
  });
  afterAll(() => pool.end());
  beforeEach(async () => {
    revisions = new Map();
    await pool.query('DROP TABLE IF EXISTS counter_views');
    await pool.query('CREATE TABLE counter_views (counter_id text PRIMARY KEY, state jsonb NOT NULL, revision bigint NOT NULL, writes int NOT NULL DEFAULT 0)');
  });

  /** Runs the batch in one transaction, counting the statements it sent. */
  const project = async (view: ViewProjection<CounterEvent, Counter, 'CounterOpened'>, batch: RecordedEvent[]): Promise<{ selects: number; inserts: number; updates: number }> => {
    const client = await pool.connect();
    const counts = { selects: 0, inserts: 0, updates: 0 };
    const counting = new Proxy(client, {
      get: (target, key) =>
        key === 'query'
          ? (query: string | { text: string }, ...rest: unknown[]) => {
              const text = typeof query === 'string' ? query : query.text;
              if (text.trimStart().startsWith('SELECT')) counts.selects++;
              if (text.trimStart().startsWith('INSERT')) counts.inserts++;
              if (text.trimStart().startsWith('UPDATE')) counts.updates++;
              return (target.query as (...args: unknown[]) => unknown).call(target, query, ...rest);
            }
          : Reflect.get(target, key),
    }) as PoolClient;
    try {
      await client.query('BEGIN');
      await projectForward(view)(batch, counting);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
    return counts;
  };
  const rows = async () =>
    (await pool.query<{ counter_id: string; state: Counter; revision: string; writes: number }>('SELECT counter_id, state, revision::text, writes FROM counter_views ORDER BY counter_id')).rows;

  it('reads the batch’s rows in one statement and writes each event, when a column may follow the event', async () => {
    expect(await project(counterView(false), [opened('a'), opened('b')])).toEqual({ selects: 1, inserts: 1, updates: 0 });
    const counts = await project(counterView(false), [added('a', 1), added('b', 10), added('a', 2), added('a', 3)]);
    expect(counts).toEqual({ selects: 1, inserts: 0, updates: 4 });
    expect(await rows()).toEqual([
      { counter_id: 'a', state: { status: 'open', total: 6 }, revision: '3', writes: 3 },
      { counter_id: 'b', state: { status: 'open', total: 10 }, revision: '1', writes: 1 },
    ]);
  });

  it('writes each object once, at its last event, in one statement for the batch, when the update depends on the state alone', async () => {
    const counts = await project(counterView(true), [opened('a'), added('a', 1), opened('b'), added('b', 10), added('a', 2), added('a', 3)]);
    expect(counts).toEqual({ selects: 1, inserts: 1, updates: 1 });
    expect(await rows()).toEqual([
      { counter_id: 'a', state: { status: 'open', total: 6 }, revision: '3', writes: 1 },
      { counter_id: 'b', state: { status: 'open', total: 10 }, revision: '1', writes: 1 },
    ]);
  });

  it('moves rows only forward: a replayed batch changes nothing, a longer one applies only what is new', async () => {
    for (const updateFromStateOnly of [false, true]) {
      revisions = new Map();
      await pool.query('TRUNCATE counter_views');
      const first = [opened('a'), added('a', 1), added('a', 2)];
      await project(counterView(updateFromStateOnly), first);
      expect(await project(counterView(updateFromStateOnly), first)).toEqual({ selects: 1, inserts: 0, updates: 0 });
      await project(counterView(updateFromStateOnly), [...first, added('a', 4)]);
      expect(await rows()).toEqual([{ counter_id: 'a', state: { status: 'open', total: 7 }, revision: '3', writes: updateFromStateOnly ? 2 : 3 }]);
    }
  });

  it('refuses an event of an object never created, and writes nothing of its batch', async () => {
    await expect(project(counterView(true), [opened('a'), added('z', 1)])).rejects.toThrow('counter view z: CounterAdded before its creation');
    expect(await rows()).toEqual([]);
  });
});
