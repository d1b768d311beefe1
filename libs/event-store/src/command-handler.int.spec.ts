import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { handleCommand, type Decider } from './command-handler';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

/** A counter aggregate: Open once, then Add amounts; the state is the running total. */
type Command = { type: 'Open' } | { type: 'Add'; amount: number } | { type: 'Reset' };
type Event = { type: 'Opened' } | { type: 'Added'; amount: number; totalAfter: number };
type State = { open: boolean; total: number };
const counter: Decider<Command, Event, State> = {
  initialState: { open: false, total: 0 },
  evolve: (state, event) => (event.type === 'Opened' ? { open: true, total: 0 } : { ...state, total: event.totalAfter }),
  decide: (command, state) => {
    if (command.type === 'Open') return state.open ? [] : [{ type: 'Opened' }];
    if (!state.open) throw new Error('not open');
    if (command.type === 'Reset') return state.total === 0 ? [] : [{ type: 'Added', amount: -state.total, totalAfter: 0 }];
    return [{ type: 'Added', amount: command.amount, totalAfter: state.total + command.amount }];
  },
};

let pool: Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  const url = await createTestDatabase('es_cmd');
  await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
  pool = createPool(url, { max: 12, statementTimeoutMs: 10_000 });
  store = new PostgresEventStore(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
});

describe('handleCommand', () => {
  it('concurrent commands on one stream are decided again on the new state: no update is lost', async () => {
    const stream = `counter-${randomUUID()}`;
    await handleCommand(store, stream, counter, { type: 'Open' });
    await Promise.all(Array.from({ length: 4 }, () => handleCommand(store, stream, counter, { type: 'Add', amount: 5 })));
    const events = await store.readStream(stream);
    expect(events.map((e) => (e.data as Event).type)).toEqual(['Opened', 'Added', 'Added', 'Added', 'Added']);
    expect((events.at(-1)!.data as { totalAfter: number }).totalAfter).toBe(20);
  });

  it('expectNew on a stream that exists falls back to reading it: the decider sees the real state', async () => {
    const stream = `counter-${randomUUID()}`;
    await handleCommand(store, stream, counter, { type: 'Open' });
    const again = await handleCommand(store, stream, counter, { type: 'Open' }, { expectNew: true });
    expect(again.events).toEqual([]);
    expect(await store.readStream(stream)).toHaveLength(1);
  });

  it('a decision of no events appends nothing and reports the current revision', async () => {
    const stream = `counter-${randomUUID()}`;
    const opened = await handleCommand(store, stream, counter, { type: 'Open' }, { expectNew: true });
    expect(opened.revision).toBe(0n);
    expect((await handleCommand(store, stream, counter, { type: 'Open' })).revision).toBe(0n);
  });

  describe('on a state that may be behind the stream (stale)', () => {
    const closed: State = { open: false, total: 0 };

    it('a command the stale state rejects is decided again on a fresh read (without stale, the rejection stands)', async () => {
      const stream = `counter-${randomUUID()}`;
      await handleCommand(store, stream, counter, { type: 'Open' });
      const before = { state: closed, revision: -1n };
      await expect(handleCommand(store, stream, counter, { type: 'Add', amount: 3 }, { from: before })).rejects.toThrow('not open');
      const added = await handleCommand(store, stream, counter, { type: 'Add', amount: 3 }, { from: before, stale: true });
      expect(added).toMatchObject({ revision: 1n, state: { open: true, total: 3 } });
    });

    it('a command the stale state leaves unchanged is decided again on a fresh read', async () => {
      const stream = `counter-${randomUUID()}`;
      const opened = await handleCommand(store, stream, counter, { type: 'Open' });
      await handleCommand(store, stream, counter, { type: 'Add', amount: 5 });
      expect((await handleCommand(store, stream, counter, { type: 'Reset' }, { from: opened })).events).toEqual([]);
      const reset = await handleCommand(store, stream, counter, { type: 'Reset' }, { from: opened, stale: true });
      expect(reset.events).toEqual([{ type: 'Added', amount: -5, totalAfter: 0 }]);
      expect(reset.revision).toBe(2n);
    });

    it('a command the stale state accepts is refused by the expected revision and decided again: no update is lost', async () => {
      const stream = `counter-${randomUUID()}`;
      const opened = await handleCommand(store, stream, counter, { type: 'Open' });
      await handleCommand(store, stream, counter, { type: 'Add', amount: 5 });
      const added = await handleCommand(store, stream, counter, { type: 'Add', amount: 1 }, { from: opened, stale: true });
      expect(added).toMatchObject({ revision: 2n, state: { total: 6 } });
    });
  });
});
