import { ServiceError } from '@pay/contracts';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { AggregateRepository, type AggregateType } from './aggregate-repository';
import type { Decider } from './command-handler';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

/** A tab: opened by an integrator, then charged while open, then closed. */
type Command = { type: 'Open'; integratorId: string } | { type: 'Charge'; amount: number } | { type: 'Close' };
type Event = { type: 'Tab.Opened'; integratorId: string } | { type: 'Tab.Charged'; amount: number } | { type: 'Tab.Closed' };
type State = { status: 'none' } | { status: 'open' | 'closed'; terms: { integratorId: string }; total: number };
const tab: Decider<Command, Event, State> = {
  initialState: { status: 'none' },
  evolve: (state, event) => {
    if (event.type === 'Tab.Opened') return { status: 'open', terms: { integratorId: event.integratorId }, total: 0 };
    if (state.status === 'none') throw new Error(`${event.type} before Tab.Opened`);
    return event.type === 'Tab.Charged' ? { ...state, total: state.total + event.amount } : { ...state, status: 'closed' };
  },
  decide: (command, state) => {
    if (command.type === 'Open') return state.status === 'none' ? [{ type: 'Tab.Opened', integratorId: command.integratorId }] : [];
    if (state.status !== 'open') throw new ServiceError('invalid_status', `the tab is ${state.status}`);
    return command.type === 'Charge' ? [{ type: 'Tab.Charged', amount: command.amount }] : [{ type: 'Tab.Closed' }];
  },
};
const tabs: AggregateType<Command, Event, State> = {
  name: 'tab',
  decider: tab,
  streamId: (id) => `Tab-${id}`,
  eventTypePrefix: 'Tab.',
  toIntegrationEvent: () => null,
};

let pool: Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  const url = await createTestDatabase('es_repository');
  await runMigrations(url, [EVENT_STORE_MIGRATIONS]);
  pool = createPool(url, { max: 6, statementTimeoutMs: 10_000 });
  store = new PostgresEventStore(pool);
});
afterAll(async () => {
  await store.close();
  await pool.end();
});

/** A repository over the real store that counts its stream reads; two of them are two processes on one store. */
const instance = () => {
  const reads: string[] = [];
  const counting = Object.create(store) as PostgresEventStore;
  counting.readStream = (streamId) => {
    reads.push(streamId);
    return store.readStream(streamId);
  };
  return { repository: new AggregateRepository(counting, tabs, () => Promise.resolve()), reads };
};

describe('AggregateRepository.executeVisible', () => {
  it('decides a command on an object this process created or changed without reading its stream', async () => {
    const { repository, reads } = instance();
    const id = randomUUID();
    await repository.create(id, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    await repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 3 });
    const { state } = await repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 4 });
    expect(state).toMatchObject({ status: 'open', total: 7 });
    expect(reads).toEqual([]);
  });

  it('reads an object it does not know, and then knows it', async () => {
    const id = randomUUID();
    await instance().repository.create(id, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    const { repository, reads } = instance();
    await repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 3 });
    await repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 4 });
    expect(reads).toEqual([`Tab-${id}`]);
  });

  it("on a state another process has moved past: the command is decided on the stream's latest state (no charge lost, a close respected)", async () => {
    const id = randomUUID();
    const here = instance();
    const there = instance();
    await here.repository.create(id, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    await there.repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 5 });
    const charged = await here.repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 1 });
    expect(charged).toMatchObject({ revision: 2n, state: { total: 6 } });

    await there.repository.executeVisible(id, 'int_a', { type: 'Close' });
    await expect(here.repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 1 })).rejects.toMatchObject({ code: 'invalid_status' });
    expect((await store.readStream(`Tab-${id}`)).map((event) => event.type)).toEqual(['Tab.Opened', 'Tab.Charged', 'Tab.Charged', 'Tab.Closed']);
  });

  it("another integrator's object is not found, remembered or not, and is left unchanged", async () => {
    const id = randomUUID();
    const { repository } = instance();
    await repository.create(id, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    await expect(repository.executeVisible(id, 'int_b', { type: 'Close' })).rejects.toMatchObject({ code: 'resource_not_found' });
    await expect(instance().repository.executeVisible(id, 'int_b', { type: 'Close' })).rejects.toMatchObject({ code: 'resource_not_found' });
    expect(await store.readStream(`Tab-${id}`)).toHaveLength(1);
  });

  it('an object not found is not remembered as missing: once another process creates it, it is found', async () => {
    const id = randomUUID();
    const { repository } = instance();
    await expect(repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 1 })).rejects.toMatchObject({ code: 'resource_not_found' });
    await instance().repository.create(id, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    expect((await repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 1 })).state).toMatchObject({ total: 1 });
  });
});

describe('AggregateRepository.recall', () => {
  it('reads the objects it does not know, so that commands on known and unknown ones started together append in one group commit', async () => {
    const [known, unknown] = [randomUUID(), randomUUID()];
    const { repository, reads } = instance();
    await repository.create(known, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    await instance().repository.create(unknown, { type: 'Open', integratorId: 'int_a' }, 'int_a');
    await repository.recall([known, unknown]);
    expect(reads).toEqual([`Tab-${unknown}`]);
    await Promise.all([known, unknown].map((id) => repository.executeVisible(id, 'int_a', { type: 'Charge', amount: 1 })));
    expect(reads).toHaveLength(1);
    // One transaction: the commit part of a position is its id.
    const commits = await Promise.all([known, unknown].map(async (id) => (await store.readStream(`Tab-${id}`)).at(-1)!.position.commit));
    expect(commits[1]).toBe(commits[0]);
  });

  it('leaves an object that does not exist to its command', async () => {
    const missing = randomUUID();
    const { repository } = instance();
    await expect(repository.recall([missing])).resolves.toBeUndefined();
    await expect(repository.executeVisible(missing, 'int_a', { type: 'Charge', amount: 1 })).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});
