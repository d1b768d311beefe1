import { randomUUID } from 'node:crypto';
import { type EventData, type EventStore, type RecordedEvent, START, WrongExpectedRevisionError, comparePositions } from './event-store';

/**
 * The behaviour every EventStore adapter must show. Run it from an adapter's spec with a factory
 * that gives a store on an empty (or at least private) database. Tests isolate themselves with
 * their own stream ids and type prefixes, so the store may be shared by other suites.
 */
export function describeEventStoreContract(name: string, factory: () => Promise<{ store: EventStore; cleanup(): Promise<void> }>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await factory());
    });
    afterAll(async () => {
      await cleanup();
    });

    /** A fresh type prefix per test, so readAll over the shared $all sees only this test's events. */
    const newPrefix = () => `Contract${randomUUID().replace(/-/g, '')}.`;
    const newStream = () => `contract-${randomUUID()}`;
    const events = (prefix: string, ...names: string[]): EventData[] => names.map((n) => ({ type: `${prefix}${n}`, data: { n } }));
    const readAllOf = (prefix: string) => store.readAll({ after: START, maxCount: 1000, typePrefixes: [prefix] });

    describe('appendToStream and readStream', () => {
      it('reads back a stream in revision order, with ids, data, metadata and revisions from 0', async () => {
        const streamId = newStream();
        const id = randomUUID();
        const first = await store.appendToStream(streamId, [{ id, type: 'Opened', data: { amountMinor: 1250 }, metadata: { correlationId: 'c-1' } }], {
          expectedRevision: 'no_stream',
        });
        const second = await store.appendToStream(streamId, [{ type: 'Noted', data: { k: 1 } }, { type: 'Noted', data: { k: 2 } }], {
          expectedRevision: 0n,
        });

        expect(first.nextExpectedRevision).toBe(0n);
        expect(second.nextExpectedRevision).toBe(2n);
        expect(comparePositions(first.position, second.position)).toBeLessThan(0);
        const read = await store.readStream(streamId);
        expect(read.map((e) => [e.revision, e.type, e.data])).toEqual([
          [0n, 'Opened', { amountMinor: 1250 }],
          [1n, 'Noted', { k: 1 }],
          [2n, 'Noted', { k: 2 }],
        ]);
        expect(read[0]).toMatchObject({ id, streamId, metadata: { correlationId: 'c-1' } });
        expect(read[0]?.createdAt).toBeInstanceOf(Date);
        expect(read[2]?.position).toEqual(second.position);
        expect(new Set(read.map((e) => e.id)).size).toBe(3);
      });

      it('keeps data and metadata exactly: quotes, backslashes, control and non-ASCII characters, nesting, numbers; appended alone and together', async () => {
        const data = { text: 'a "quoted" \\ back\\slash, {braces}, tab\t, line\nbreak, été ✓ 🙂', nested: [{ deep: ['"', '\\', ','] }], n: -12.5, big: 9007199254740991, none: null };
        const metadata = { note: 'meta "data" \\ ✓' };
        const streams = [newStream(), newStream(), newStream()];
        await Promise.all([
          store.appendToStream(streams[0]!, [{ type: 'Kept', data, metadata }, { type: 'Kept', data: { ...data, second: true }, metadata }], { expectedRevision: 'no_stream' }),
          store.appendToStream(streams[1]!, [{ type: 'Kept', data, metadata }], { expectedRevision: 'no_stream' }),
          store.appendToStream(streams[2]!, [{ type: 'Kept', data, metadata }], { expectedRevision: 'any' }),
        ]);
        for (const streamId of streams) {
          for (const event of await store.readStream(streamId)) {
            expect(event.data).toEqual(event.revision === 1n ? { ...data, second: true } : data);
            expect(event.metadata).toEqual(metadata);
          }
        }
      });

      it('reads a stream that does not exist as an empty array', async () => {
        await expect(store.readStream(newStream())).resolves.toEqual([]);
      });

      it('appends with expected revision any to a new and to an existing stream', async () => {
        const streamId = newStream();
        await store.appendToStream(streamId, [{ type: 'A', data: {} }], { expectedRevision: 'any' });
        const result = await store.appendToStream(streamId, [{ type: 'B', data: {} }], { expectedRevision: 'any' });
        expect(result.nextExpectedRevision).toBe(1n);
        expect((await store.readStream(streamId)).map((e) => e.type)).toEqual(['A', 'B']);
      });
    });

    describe('readStreams', () => {
      it('reads several streams at once, each as readStream gives it; a stream that does not exist as an empty array', async () => {
        const [a, b, missing] = [newStream(), newStream(), newStream()];
        await store.appendToStream(a, events('', 'A0', 'A1', 'A2'), { expectedRevision: 'no_stream' });
        await store.appendToStream(b, events('', 'B0'), { expectedRevision: 'no_stream' });
        await store.appendToStream(a, events('', 'A3'), { expectedRevision: 2n });

        const read = await store.readStreams([b, missing, a, b]);
        expect([...read.keys()].sort()).toEqual([a, b, missing].sort());
        expect(read.get(a)).toEqual(await store.readStream(a));
        expect(read.get(a)?.map((e) => e.type)).toEqual(['A0', 'A1', 'A2', 'A3']);
        expect(read.get(b)).toEqual(await store.readStream(b));
        expect(read.get(missing)).toEqual([]);
        await expect(store.readStreams([])).resolves.toEqual(new Map());
      });
    });

    describe('readEvent', () => {
      it('reads one event of a stream by its id, as readStream gives it; null for an id the stream does not have', async () => {
        const streamId = newStream();
        const id = randomUUID();
        await store.appendToStream(streamId, [{ type: 'Opened', data: { n: 0 } }, { id, type: 'Noted', data: { n: 1 }, metadata: { by: 'op' } }], {
          expectedRevision: 'no_stream',
        });

        const read = await store.readEvent(streamId, id);
        expect(read).toEqual((await store.readStream(streamId))[1]);
        expect(read).toMatchObject({ id, streamId, revision: 1n, type: 'Noted', data: { n: 1 }, metadata: { by: 'op' } });
        await expect(store.readEvent(streamId, randomUUID())).resolves.toBeNull();
        await expect(store.readEvent(newStream(), id)).resolves.toBeNull();
        await expect(store.readEvent(streamId, 'not-an-event-id')).resolves.toBeNull();
      });
    });

    describe('expected revision', () => {
      it('rejects no_stream on an existing stream with WrongExpectedRevisionError and appends nothing', async () => {
        const streamId = newStream();
        await store.appendToStream(streamId, [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' });
        await expect(store.appendToStream(streamId, [{ type: 'B', data: {} }], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect(await store.readStream(streamId)).toHaveLength(1);
      });

      it('rejects a stale revision and a revision on a missing stream with WrongExpectedRevisionError', async () => {
        const streamId = newStream();
        await store.appendToStream(streamId, [{ type: 'A', data: {} }, { type: 'B', data: {} }], { expectedRevision: 'no_stream' });
        await expect(store.appendToStream(streamId, [{ type: 'C', data: {} }], { expectedRevision: 0n })).rejects.toMatchObject({
          name: 'WrongExpectedRevisionError',
          streamId,
          expected: 0n,
        });
        await expect(store.appendToStream(newStream(), [{ type: 'C', data: {} }], { expectedRevision: 0n })).rejects.toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect(await store.readStream(streamId)).toHaveLength(2);
      });

      it('detects a concurrency conflict: of two writers with the same expected revision exactly one wins', async () => {
        const streamId = newStream();
        await store.appendToStream(streamId, [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' });
        const results = await Promise.allSettled(
          ['B', 'C'].map((type) => store.appendToStream(streamId, [{ type, data: {} }], { expectedRevision: 0n })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(rejected).toHaveLength(1);
        expect(rejected[0]?.reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(streamId)).toHaveLength(2);
      });

      it('detects a concurrency conflict: of two writers creating the same stream exactly one wins', async () => {
        const streamId = newStream();
        const results = await Promise.allSettled(
          ['A', 'B'].map((type) => store.appendToStream(streamId, [{ type, data: {} }], { expectedRevision: 'no_stream' })),
        );
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        expect(await store.readStream(streamId)).toHaveLength(1);
      });
    });

    describe('readAll', () => {
      it('returns events of all streams in global (append) order', async () => {
        const prefix = newPrefix();
        const [a, b] = [newStream(), newStream()];
        await store.appendToStream(a, events(prefix, 'A1'), { expectedRevision: 'no_stream' });
        await store.appendToStream(b, events(prefix, 'B1', 'B2'), { expectedRevision: 'no_stream' });
        await store.appendToStream(a, events(prefix, 'A2'), { expectedRevision: 0n });

        const all = await readAllOf(prefix);
        expect(all.map((e) => `${e.streamId === a ? 'a' : 'b'}:${e.type.slice(prefix.length)}`)).toEqual(['a:A1', 'b:B1', 'b:B2', 'a:A2']);
        expectAscending(all);
      });

      it('pages with after (exclusive) and maxCount without skipping or repeating', async () => {
        const prefix = newPrefix();
        await store.appendToStream(newStream(), events(prefix, '1', '2', '3', '4', '5'), { expectedRevision: 'no_stream' });

        const pages: RecordedEvent[][] = [];
        let after = START;
        for (let page = await store.readAll({ after, maxCount: 2, typePrefixes: [prefix] }); page.length > 0; ) {
          pages.push(page);
          after = page[page.length - 1]?.position ?? after;
          page = await store.readAll({ after, maxCount: 2, typePrefixes: [prefix] });
        }
        expect(pages.map((p) => p.map((e) => e.type.slice(prefix.length)))).toEqual([['1', '2'], ['3', '4'], ['5']]);
      });

      it('filters by type prefixes', async () => {
        const prefix = newPrefix();
        await store.appendToStream(newStream(), events(prefix, 'Payment.Created', 'Ledger.Posted', 'Payment.Canceled', 'Webhook.Sent'), {
          expectedRevision: 'no_stream',
        });
        const read = await store.readAll({ after: START, maxCount: 100, typePrefixes: [`${prefix}Payment.`, `${prefix}Webhook.`] });
        expect(read.map((e) => e.type.slice(prefix.length))).toEqual(['Payment.Created', 'Payment.Canceled', 'Webhook.Sent']);
      });

      it('treats LIKE wildcards in a prefix literally', async () => {
        const prefix = newPrefix();
        await store.appendToStream(newStream(), events(prefix, 'a_b', 'axb', 'a%c'), { expectedRevision: 'no_stream' });
        const read = await store.readAll({ after: START, maxCount: 100, typePrefixes: [`${prefix}a_`, `${prefix}a%`] });
        expect(read.map((e) => e.type.slice(prefix.length))).toEqual(['a_b', 'a%c']);
      });

      it('tells how far a short page looked, so that a filter matching nothing resumes after it, never skipping a later match', async () => {
        const [mine, others] = [newPrefix(), newPrefix()];
        const { position: start } = await store.appendToStream(newStream(), events(mine, 'First'), { expectedRevision: 'no_stream' });
        const { position: otherLast } = await store.appendToStream(newStream(), events(others, 'X', 'Y'), { expectedRevision: 'no_stream' });

        const idle = await store.readAllPage({ after: start, maxCount: 10, typePrefixes: [mine] });
        expect(idle.events).toEqual([]);
        expect(idle.scannedTo).not.toBeNull();
        // Other appends may run beside this suite: at least as far as ours, never before it.
        expect(comparePositions(idle.scannedTo!, otherLast)).toBeGreaterThanOrEqual(0);

        await store.appendToStream(newStream(), events(mine, 'Second'), { expectedRevision: 'no_stream' });
        const next = await store.readAllPage({ after: idle.scannedTo!, maxCount: 10, typePrefixes: [mine] });
        expect(next.events.map((e) => e.type.slice(mine.length))).toEqual(['Second']);

        const full = await store.readAllPage({ after: START, maxCount: 1, typePrefixes: [mine] });
        expect(full.events).toHaveLength(1);
        expect(full.scannedTo).toBeNull();
      });

      it('without type prefixes returns events of every type', async () => {
        const [p1, p2] = [newPrefix(), newPrefix()];
        const { position: before } = await store.appendToStream(newStream(), events(p1, 'Before'), { expectedRevision: 'no_stream' });
        await store.appendToStream(newStream(), events(p1, 'X'), { expectedRevision: 'no_stream' });
        await store.appendToStream(newStream(), events(p2, 'Y'), { expectedRevision: 'no_stream' });
        const read = await store.readAll({ after: before, maxCount: 1000 });
        expectAscending(read);
        expect(read.map((e) => e.type)).toEqual(expect.arrayContaining([`${p1}X`, `${p2}Y`]));
        expect(read.map((e) => e.type)).not.toContain(`${p1}Before`);
      });
    });

    describe('onAppended', () => {
      it('calls listeners after an append until they unsubscribe', async () => {
        let calls = 0;
        const unsubscribe = store.onAppended(() => (calls += 1));
        await store.appendToStream(newStream(), [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' });
        await eventually(() => expect(calls).toBeGreaterThanOrEqual(1));
        unsubscribe();
        const before = calls;
        await store.appendToStream(newStream(), [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' });
        expect(calls).toBe(before);
      });
    });
  });
}

function expectAscending(events: readonly RecordedEvent[]): void {
  for (let i = 1; i < events.length; i += 1) {
    expect(comparePositions((events[i - 1] as RecordedEvent).position, (events[i] as RecordedEvent).position)).toBeLessThan(0);
  }
}

/** Retries an assertion until it holds (notifications may arrive asynchronously in some adapters). */
async function eventually(assertion: () => void, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
