import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import {
  ANY,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  NO_STREAM,
  START as ESDB_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { matchesTypePrefixes, START, WrongExpectedRevisionError } from './event-store';
import {
  EventStoreDBEventStore,
  fromEsdbPosition,
  isAfter,
  isSystemEvent,
  toEsdbEventData,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
  toRecordedEvent,
} from './eventstoredb-event-store';

/**
 * The adapter's own logic, without a server: the client is a fake whose readAll follows ESDB's
 * documented behaviour (a read from a position includes the event at that position). Whether the
 * real server behaves so is for the contract suite against EventStoreDB (EVENTSTORE_URL).
 */

interface RawEvent {
  streamId: string;
  type: string;
  commit: bigint;
}

const recorded = ({ streamId, type, commit }: RawEvent, revision = 0n) => ({
  streamId,
  id: randomUUID(),
  isJson: true as const,
  revision,
  type,
  created: new Date('2025-01-02T03:04:05.000Z'),
  data: { type },
  metadata: { correlationId: 'c-1' },
  position: { commit, prepare: commit },
});

/** A fake $all: events at positions 10, 20, 30, ... and readAll calls recorded. */
function fakeAll(raw: RawEvent[]) {
  const log = raw.map((event) => recorded(event));
  const reads: { from: unknown; maxCount: number }[] = [];
  const client = {
    readAll({ fromPosition, maxCount }: { fromPosition: typeof ESDB_START | { commit: bigint }; maxCount: number }) {
      reads.push({ from: fromPosition, maxCount });
      const start = fromPosition === ESDB_START ? 0 : log.findIndex((e) => e.position.commit >= fromPosition.commit);
      const page = (start < 0 ? [] : log.slice(start, start + maxCount)).map((event): AllStreamResolvedEvent => ({ event }));
      return (async function* () {
        yield* page;
      })();
    },
  };
  return { client: client as unknown as EventStoreDBClient, reads };
}

const at = (commit: number, type: string, streamId = 'payment-1'): RawEvent => ({ streamId, type, commit: BigInt(commit) });

describe('EventStoreDB mapping', () => {
  it('maps the expected revision: no_stream to NO_STREAM, any to ANY, a revision to the same bigint', () => {
    expect(toEsdbExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    expect(toEsdbExpectedRevision(0n)).toBe(0n);
    expect(toEsdbExpectedRevision(41n)).toBe(41n);
    expect(() => toEsdbExpectedRevision(-1n)).toThrow(RangeError);
  });

  it('converts positions both ways, START to the start of $all', () => {
    expect(toEsdbReadPosition(START)).toBe(ESDB_START);
    expect(toEsdbReadPosition({ commit: 1234n, prepare: 1200n })).toEqual({ commit: 1234n, prepare: 1200n });
    expect(fromEsdbPosition({ commit: 18446744073709551614n, prepare: 7n })).toEqual({ commit: 18446744073709551614n, prepare: 7n });
    expect(() => toEsdbReadPosition({ commit: 5n, prepare: -1n })).toThrow(RangeError);
  });

  it('treats after as exclusive: a position equal to it is not after it', () => {
    const after = { commit: 100n, prepare: 90n };
    expect(isAfter({ commit: 100n, prepare: 90n }, after)).toBe(false);
    expect(isAfter({ commit: 100n, prepare: 89n }, after)).toBe(false);
    expect(isAfter({ commit: 100n, prepare: 91n }, after)).toBe(true);
    expect(isAfter({ commit: 101n, prepare: 0n }, after)).toBe(true);
    expect(isAfter({ commit: 0n, prepare: 0n }, START)).toBe(true);
  });

  it('recognises system events by a $ type or a $ stream', () => {
    expect(isSystemEvent({ type: '$metadata', streamId: '$$payment-1' })).toBe(true);
    expect(isSystemEvent({ type: '$>', streamId: '$ce-payment' })).toBe(true);
    expect(isSystemEvent({ type: 'StatsCollected', streamId: '$stats-127.0.0.1:2113' })).toBe(true);
    expect(isSystemEvent({ type: 'PaymentCreated', streamId: 'payment-1' })).toBe(false);
  });

  it('matches type prefixes literally, and every type without prefixes', () => {
    expect(matchesTypePrefixes('Payment.Created', [])).toBe(true);
    expect(matchesTypePrefixes('Payment.Created', ['Ledger.', 'Payment.'])).toBe(true);
    expect(matchesTypePrefixes('PaymentXCreated', ['Payment.'])).toBe(false);
    expect(matchesTypePrefixes('a_b', ['a%'])).toBe(false);
  });

  it('maps a recorded event: revision, position, created, data and metadata', () => {
    const event = recorded(at(10, 'Opened'), 3n);
    expect(toRecordedEvent(event)).toEqual({
      id: event.id,
      streamId: 'payment-1',
      revision: 3n,
      position: { commit: 10n, prepare: 10n },
      type: 'Opened',
      data: { type: 'Opened' },
      metadata: { correlationId: 'c-1' },
      createdAt: new Date('2025-01-02T03:04:05.000Z'),
    });
    expect(toRecordedEvent({ ...event, metadata: undefined }).metadata).toEqual({});
    expect(() => toRecordedEvent({ ...event, position: undefined })).toThrow(/22\.6 or later/);
  });

  it('writes events as JSON with their id, type, data and metadata', () => {
    const id = randomUUID();
    expect(toEsdbEventData({ id, type: 'Opened', data: { amountMinor: 1250 }, metadata: { correlationId: 'c-1' } })).toEqual({
      id,
      contentType: 'application/json',
      type: 'Opened',
      data: { amountMinor: 1250 },
      metadata: { correlationId: 'c-1' },
    });
    expect(toEsdbEventData({ type: 'Noted', data: {} }).id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('EventStoreDBEventStore.readAll (fake client)', () => {
  const log = [
    at(10, '$epoch-information', '$epoch-information'),
    at(20, 'Payment.Created'),
    at(30, 'Ledger.Posted', 'ledger-1'),
    at(40, '$metadata', '$$payment-1'),
    at(50, 'Payment.Canceled'),
    at(60, 'Webhook.Sent', 'webhook-1'),
    at(70, 'Payment.Created', 'payment-2'),
  ];
  const types = (events: { type: string }[]) => events.map((e) => e.type);

  it('skips system events and starts after `after`, exclusive of the event at that position', async () => {
    const { client } = fakeAll(log);
    const store = new EventStoreDBEventStore(client);
    expect(types(await store.readAll({ after: START, maxCount: 100 }))).toEqual([
      'Payment.Created',
      'Ledger.Posted',
      'Payment.Canceled',
      'Webhook.Sent',
      'Payment.Created',
    ]);
    expect(types(await store.readAll({ after: { commit: 50n, prepare: 50n }, maxCount: 100 }))).toEqual(['Webhook.Sent', 'Payment.Created']);
    expect(await store.readAll({ after: { commit: 70n, prepare: 70n }, maxCount: 100 })).toEqual([]);
  });

  it('pages through $all until maxCount events match, without skipping or repeating at page boundaries', async () => {
    const { client, reads } = fakeAll(log);
    const store = new EventStoreDBEventStore(client, { scanPageSize: 2 });
    const first = await store.readAll({ after: START, maxCount: 2, typePrefixes: ['Payment.'] });
    expect(first.map((e) => e.position.commit)).toEqual([20n, 50n]);
    const second = await store.readAll({ after: first[1]!.position, maxCount: 2, typePrefixes: ['Payment.'] });
    expect(second.map((e) => e.position.commit)).toEqual([70n]);
    // Every page after the first starts at the last position seen (ESDB reads inclusively).
    expect(reads.map((r) => r.from)).toEqual([
      ESDB_START,
      { commit: 20n, prepare: 20n },
      { commit: 30n, prepare: 30n },
      { commit: 40n, prepare: 40n },
      { commit: 50n, prepare: 50n },
      { commit: 60n, prepare: 60n },
      { commit: 70n, prepare: 70n },
    ]);
  });

  it('without prefixes reads little more than maxCount', async () => {
    const { client, reads } = fakeAll(log);
    const store = new EventStoreDBEventStore(client);
    expect(types(await store.readAll({ after: { commit: 20n, prepare: 20n }, maxCount: 1 }))).toEqual(['Ledger.Posted']);
    expect(reads).toEqual([{ from: { commit: 20n, prepare: 20n }, maxCount: 2 }]);
  });

  it('bounds maxCount and the number of prefixes like the PostgreSQL adapter', async () => {
    const store = new EventStoreDBEventStore(fakeAll(log).client);
    await expect(store.readAll({ after: START, maxCount: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.readAll({ after: START, maxCount: 1001 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.readAll({ after: START, maxCount: 1, typePrefixes: Array.from({ length: 101 }, (_, i) => `T${i}`) })).rejects.toBeInstanceOf(
      RangeError,
    );
  });
});

describe('EventStoreDBEventStore appends and stream reads (fake client)', () => {
  it('turns WrongExpectedVersionError into WrongExpectedRevisionError with the stream and the expectation', async () => {
    const client = {
      appendToStream: jest.fn(async (streamName: string) => {
        throw new WrongExpectedVersionError(undefined, { streamName, expected: NO_STREAM, current: 0n });
      }),
    };
    const store = new EventStoreDBEventStore(client as unknown as EventStoreDBClient);
    await expect(store.appendToStream('payment-1', [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' })).rejects.toMatchObject({
      name: 'WrongExpectedRevisionError',
      streamId: 'payment-1',
      expected: 'no_stream',
    });
    await expect(store.appendToStream('payment-1', [{ type: 'A', data: {} }], { expectedRevision: 3n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(client.appendToStream).toHaveBeenLastCalledWith('payment-1', [expect.objectContaining({ type: 'A' })], { expectedRevision: 3n });
  });

  it('returns the next expected revision and the position of the append', async () => {
    const client = { appendToStream: async () => ({ success: true, nextExpectedRevision: 2n, position: { commit: 900n, prepare: 880n } }) };
    const store = new EventStoreDBEventStore(client as unknown as EventStoreDBClient);
    await expect(store.appendToStream('s', [{ type: 'A', data: {} }], { expectedRevision: 'any' })).resolves.toEqual({
      nextExpectedRevision: 2n,
      position: { commit: 900n, prepare: 880n },
    });
  });

  it('refuses appends ESDB would reject or the port has no meaning for', async () => {
    const store = new EventStoreDBEventStore({} as EventStoreDBClient);
    await expect(store.appendToStream('s', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(RangeError);
    await expect(store.appendToStream('', [{ type: 'A', data: {} }], { expectedRevision: 'any' })).rejects.toBeInstanceOf(RangeError);
    await expect(store.appendToStream('s', [{ id: 'evt_1', type: 'A', data: {} }], { expectedRevision: 'any' })).rejects.toThrow(/not a UUID/);
    await expect(store.appendToStream('s', [{ type: 'A', data: undefined }], { expectedRevision: 'any' })).rejects.toBeInstanceOf(TypeError);
    await expect(store.appendToStream('s', [{ type: 'A', data: {} }], { expectedRevision: -1n })).rejects.toBeInstanceOf(RangeError);
  });

  it('reads a missing stream (StreamNotFoundError) as an empty array', async () => {
    const client = {
      readStream: (streamName: string) =>
        (async function* () {
          yield* [];
          throw new StreamNotFoundError(undefined, streamName);
        })(),
    };
    const store = new EventStoreDBEventStore(client as unknown as EventStoreDBClient);
    await expect(store.readStream('payment-404')).resolves.toEqual([]);
  });
});

describe('EventStoreDBEventStore.onAppended (fake subscription)', () => {
  class FakeSubscription extends EventEmitter {
    unsubscribed = false;
    async unsubscribe(): Promise<void> {
      this.unsubscribed = true;
    }
  }

  function fakeSubscriptions() {
    const made: FakeSubscription[] = [];
    const client = {
      subscribeToAll: jest.fn(() => {
        const subscription = new FakeSubscription();
        made.push(subscription);
        return subscription;
      }),
      dispose: jest.fn(async () => undefined),
    };
    return { client, made, store: new EventStoreDBEventStore(client as unknown as EventStoreDBClient, { resubscribeDelayMs: 10 }) };
  }

  it('subscribes to $all from its end, without system events, only once listeners exist, and stops with the last', () => {
    const { client, made, store } = fakeSubscriptions();
    expect(client.subscribeToAll).not.toHaveBeenCalled();
    const calls: string[] = [];
    const stopA = store.onAppended(() => calls.push('a'));
    const stopB = store.onAppended(() => calls.push('b'));
    expect(client.subscribeToAll).toHaveBeenCalledTimes(1);
    expect(client.subscribeToAll).toHaveBeenCalledWith({ fromPosition: 'end', filter: expect.objectContaining({ filterOn: 'eventType', regex: '^[^$].*' }) });

    made[0]!.emit('confirmation'); // appends made while subscribing: listeners look for themselves
    made[0]!.emit('data', {});
    expect(calls).toEqual(['a', 'b', 'a', 'b']);

    stopA();
    made[0]!.emit('data', {});
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'b']);
    expect(made[0]!.unsubscribed).toBe(false);
    stopB();
    expect(made[0]!.unsubscribed).toBe(true);
  });

  it('subscribes again after the subscription drops, and disposes everything on close', async () => {
    const { client, made, store } = fakeSubscriptions();
    let calls = 0;
    store.onAppended(() => (calls += 1));
    made[0]!.emit('error', new Error('connection reset'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(client.subscribeToAll).toHaveBeenCalledTimes(2);
    made[1]!.emit('confirmation');
    expect(calls).toBe(1);

    await store.close();
    expect(made[1]!.unsubscribed).toBe(true);
    expect(client.dispose).toHaveBeenCalledTimes(1);
    expect(store.onAppended(() => undefined)).toEqual(expect.any(Function));
    expect(client.subscribeToAll).toHaveBeenCalledTimes(2);
  });
});
