import { v7 as uuidV7 } from 'uuid';
import type { Pool } from 'pg';
import {
  APPEND_EVENTS_MAX,
  APPEND_GROUP_MAX,
  APPEND_QUEUE_LENGTH_MAX,
  READ_ALL_COUNT_MAX,
  READ_ALL_RETRY_MS_MAX,
  READ_ALL_RETRY_MS_MIN,
  READ_ALL_WAIT_MS_DEFAULT,
  STREAM_LENGTH_MAX,
  STREAM_READ_GROUP_MAX,
  STREAM_READ_QUEUE_LENGTH_MAX,
  TYPE_PREFIXES_MAX,
} from '@pay/kernel';
import { columns, GroupCommit, jsonElement, type Waiting } from '@pay/platform';
import { AppendNotifier } from './append-notifier';
import {
  type AppendListener,
  type AppendResult,
  comparePositions,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type Position,
  type ReadAllOptions,
  type ReadAllPage,
  type RecordedEvent,
  assertStreamsReadable,
  WrongExpectedRevisionError,
} from './event-store';
import {
  APPEND_ANY,
  APPEND_EXPECTED_REVISION,
  APPEND_MANY,
  APPEND_NO_STREAM,
  type AppendedManyRow,
  type AppendedRow,
  type EventRow,
  COMMIT_TOKEN,
  READ_ALL,
  READ_EVENT,
  READ_STREAM,
  READ_STREAMS,
  type ReadAllRow,
  toPrefixPattern,
  toRecordedEvent,
} from './postgres-statements';

/**
 * A new event's id: a UUIDv7, whose first bits are the time. The unique index on event ids then takes
 * each new id on its last pages, which stay in memory; random ids (v4) land on a page anywhere in it,
 * which with millions of events is mostly not in memory and must be read in first.
 */
const newEventId = (): string => uuidV7();

/** Another event already has this id (ids are unique across all streams). */
export class DuplicateEventIdError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId}: an appended event id is already used`);
    this.name = 'DuplicateEventIdError';
  }
}

const tooLong = (streamId: string): RangeError => new RangeError(`stream ${streamId} is longer than ${STREAM_LENGTH_MAX} events`);

const UNIQUE_VIOLATION = '23505';
const EVENT_ID_CONSTRAINT = 'es_events_event_id_key';

/**
 * The event store on PostgreSQL (es_streams, es_events). The pool is the caller's: `close` stops
 * notifications but leaves the pool open. `onAppended` is in-process only (no LISTEN/NOTIFY: its
 * commit-time lock would serialise every append); other processes find events by polling.
 */
export interface PostgresEventStoreOptions {
  /** See READ_ALL_WAIT_MS_DEFAULT; 0 never waits (a short page may then end before a pending event). */
  readAllWaitMs?: number;
}

/** An append with an expectation (no_stream or a revision), its events' ids drawn. */
interface PendingAppend {
  streamId: string;
  events: readonly EventData[];
  eventIds: string[];
  expectedRevision: 'no_stream' | bigint;
}

export class PostgresEventStore implements EventStore {
  private readonly notifier: AppendNotifier;
  private readonly readAllWaitMs: number;
  /** The last commit token read, and when its statement was sent. */
  private lastCommitToken: { sentAt: number; token: Promise<string> } | undefined;
  /**
   * Group commit of the appends with an expectation: those that arrive while one statement runs go in
   * the next one, and commit together (an append whose expectation fails is refused alone).
   */
  private readonly appends = new GroupCommit<PendingAppend, AppendedRow | undefined>((group) => this.appendGroup(group), {
    name: 'event store append',
    batchSizeMax: APPEND_GROUP_MAX,
    queueLengthMax: APPEND_QUEUE_LENGTH_MAX,
  });
  /**
   * Streams read by commands: those asked for while one read runs are read together by the next
   * statement. A batch of commands on objects this process did not write last (another instance
   * created them) then reads their streams in one round trip, not one each.
   */
  private readonly reads = new GroupCommit<string, RecordedEvent[]>((group) => this.readGroup(group), {
    name: 'event store read',
    batchSizeMax: STREAM_READ_GROUP_MAX,
    queueLengthMax: STREAM_READ_QUEUE_LENGTH_MAX,
  });

  constructor(
    private readonly pool: Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    this.notifier = new AppendNotifier(pool);
    this.readAllWaitMs = options.readAllWaitMs ?? READ_ALL_WAIT_MS_DEFAULT;
    if (!Number.isInteger(this.readAllWaitMs) || this.readAllWaitMs < 0 || this.readAllWaitMs > 60_000) {
      throw new RangeError(`readAllWaitMs must be an integer from 0 to 60000, got ${this.readAllWaitMs}`);
    }
  }

  async appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    assertAppendable(streamId, events);
    const { expectedRevision } = options;
    if (typeof expectedRevision === 'bigint' && expectedRevision < 0n) throw new RangeError(`expected revision ${expectedRevision} is negative`);
    const append = { streamId, events, eventIds: events.map((event) => event.id ?? newEventId()) };
    const row = expectedRevision === 'any' ? await this.appendAlone({ ...append, expectedRevision }) : await this.appends.submit({ ...append, expectedRevision });
    if (!row) throw new WrongExpectedRevisionError(streamId, expectedRevision);
    const position = { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
    this.notifier.appended(position.commit, events);
    return { nextExpectedRevision: BigInt(row.revision), position };
  }

  readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.reads.submit(streamId);
  }

  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    assertStreamsReadable(streamIds);
    const streams = await this.readEach(streamIds);
    for (const [id, events] of streams) if (events.length > STREAM_LENGTH_MAX) throw tooLong(id);
    return streams;
  }

  /** One statement for the group; a stream too long fails only the commands that read it. */
  private async readGroup(group: readonly Waiting<string, RecordedEvent[]>[]): Promise<void> {
    const streams = await this.readEach(group.map((waiting) => waiting.item));
    for (const { item, resolve, reject } of group) {
      const events = streams.get(item)!;
      if (events.length > STREAM_LENGTH_MAX) reject(tooLong(item));
      else resolve(events);
    }
  }

  /** Each stream's events, up to one past STREAM_LENGTH_MAX (so that a longer one is seen). */
  private async readEach(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const streams = new Map<string, RecordedEvent[]>(streamIds.map((id) => [id, []]));
    const query = streams.size === 1 ? { ...READ_STREAM, values: [streamIds[0], STREAM_LENGTH_MAX + 1] } : { ...READ_STREAMS, values: [[...streams.keys()], STREAM_LENGTH_MAX + 1] };
    const { rows } = await this.pool.query<EventRow>(query);
    for (const row of rows) streams.get(row.stream_id)!.push(toRecordedEvent(row));
    return streams;
  }

  async readEvent(streamId: string, eventId: string): Promise<RecordedEvent | null> {
    const { rows } = await this.pool.query<EventRow>({ ...READ_EVENT, values: [streamId, eventId] });
    return rows[0] ? toRecordedEvent(rows[0]) : null;
  }

  /**
   * COMMIT_TOKEN: this database's appends, not the server's other commits. One read is shared by every
   * caller whose `notBefore` it meets, in flight or done: a process's subscriptions poll at their own
   * times, and most find the token another one just read.
   */
  commitToken(notBefore: number): Promise<string> {
    const last = this.lastCommitToken;
    if (last && last.sentAt >= notBefore) return last.token;
    const sentAt = performance.now();
    const token = this.pool.query<{ token: string }>(COMMIT_TOKEN).then(({ rows }) => rows[0]!.token);
    this.lastCommitToken = { sentAt, token };
    // A failed read is not handed to anyone else: the next caller reads again.
    token.catch(() => {
      if (this.lastCommitToken?.token === token) this.lastCommitToken = undefined;
    });
    return token;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return (await this.readAllPage(options)).events;
  }

  async readAllPage({ after, maxCount, typePrefixes = [] }: ReadAllOptions): Promise<ReadAllPage> {
    if (!Number.isInteger(maxCount) || maxCount < 1 || maxCount > READ_ALL_COUNT_MAX) {
      throw new RangeError(`maxCount must be an integer from 1 to ${READ_ALL_COUNT_MAX}, got ${maxCount}`);
    }
    if (typePrefixes.length > TYPE_PREFIXES_MAX) throw new RangeError(`at most ${TYPE_PREFIXES_MAX} type prefixes`);
    // xid8 has no -1: START becomes (0, -1), still before every real transaction id (>= 3).
    const commit = after.commit < 0n ? 0n : after.commit;
    const values = [String(commit), String(after.prepare), maxCount, typePrefixes.map(toPrefixPattern)];
    // A short page while an older writer is still open is not the end yet: wait for it (bounded),
    // so that a caught-up reader has seen everything committed before it asked.
    const deadline = Date.now() + this.readAllWaitMs;
    for (let retryMs = READ_ALL_RETRY_MS_MIN; ; retryMs = Math.min(retryMs * 2, READ_ALL_RETRY_MS_MAX)) {
      const { rows } = await this.pool.query<ReadAllRow>({ ...READ_ALL, values });
      const events = rows.filter((row): row is ReadAllRow & EventRow => row.id !== null).map(toRecordedEvent);
      if (events.length === maxCount) return { events, scannedTo: null };
      if (!rows[0]?.pending || Date.now() >= deadline) return { events, scannedTo: scannedTo(rows[0], after) };
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  /** Called once an append is readable by readAll (see AppendNotifier); this process only. */
  onAppended(listener: AppendListener): () => void {
    return this.notifier.add(listener);
  }

  async close(): Promise<void> {
    this.notifier.close();
  }

  /** A group of appends: each stream once per statement (a stream's next append waits for the next one). */
  private async appendGroup(group: readonly Waiting<PendingAppend, AppendedRow | undefined>[]): Promise<void> {
    for (let rest = group; rest.length > 0; ) {
      const streams = new Set<string>();
      const round: Waiting<PendingAppend, AppendedRow | undefined>[] = [];
      const later: Waiting<PendingAppend, AppendedRow | undefined>[] = [];
      for (const waiting of rest) {
        if (streams.has(waiting.item.streamId)) {
          later.push(waiting);
        } else {
          streams.add(waiting.item.streamId);
          round.push(waiting);
        }
      }
      await this.appendTogether(round);
      rest = later;
    }
  }

  /**
   * Appends to distinct streams in one statement. Should it fail (an event id already used, a deadlock
   * with another process's group), each append is made alone, and fails or succeeds on its own.
   */
  private async appendTogether(round: readonly Waiting<PendingAppend, AppendedRow | undefined>[]): Promise<void> {
    if (round.length > 1) {
      try {
        const { rows } = await this.pool.query<AppendedManyRow>({ ...APPEND_MANY, values: appendManyValues(round.map((waiting) => waiting.item)) });
        round.forEach((waiting, index) => {
          const row = rows[index]!;
          waiting.resolve(row.commit === null ? undefined : row);
        });
        return;
      } catch {
        // Each alone below: the error that matters is the one append's own.
      }
    }
    await Promise.all(round.map((waiting) => this.appendAlone(waiting.item).then(waiting.resolve, waiting.reject)));
  }

  /** One append in one statement: the row of its last event, or undefined when its expectation failed. */
  private async appendAlone({ streamId, events, eventIds, expectedRevision }: Omit<PendingAppend, 'expectedRevision'> & { expectedRevision: ExpectedRevision }): Promise<AppendedRow | undefined> {
    const values: unknown[] = [
      streamId,
      eventIds,
      events.map((event) => event.type),
      JSON.stringify(events.map((event) => event.data)),
      JSON.stringify(events.map((event) => event.metadata ?? {})),
      String(events.length),
    ];
    if (typeof expectedRevision === 'bigint') values.push(String(expectedRevision));
    try {
      const { rows } = await this.pool.query<AppendedRow>({ ...appendStatement(expectedRevision), values });
      return rows[0];
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === EVENT_ID_CONSTRAINT) throw new DuplicateEventIdError(streamId);
      throw error;
    }
  }
}

/** APPEND_MANY's parameters: the appends, then every event by its append's index and its ordinal (both from 1). */
const appendManyValues = (appends: readonly PendingAppend[]): unknown[] => {
  const events = appends.flatMap((append, index) => append.events.map((event, ordinal) => ({ event, id: append.eventIds[ordinal]!, append: index + 1, ordinal: ordinal + 1 })));
  return [
    ...columns(appends, ({ streamId, events: appended, expectedRevision }) => [
      streamId,
      expectedRevision === 'no_stream' ? 'no_stream' : 'revision',
      expectedRevision === 'no_stream' ? null : String(expectedRevision),
      String(appended.length),
    ]),
    ...columns(events, ({ event, id, append, ordinal }) => [String(append), String(ordinal), id, event.type, jsonElement(event.data), jsonElement(event.metadata ?? {})]),
  ];
};

const appendStatement = (expected: ExpectedRevision): { name: string; text: string } => {
  if (expected === 'no_stream') return APPEND_NO_STREAM;
  if (expected === 'any') return APPEND_ANY;
  return APPEND_EXPECTED_REVISION;
};

const assertAppendable = (streamId: string, events: readonly EventData[]): void => {
  if (streamId.length === 0) throw new RangeError('stream id is empty');
  // Zero events would have no position to return; the port has no meaning for it.
  if (events.length === 0 || events.length > APPEND_EVENTS_MAX) {
    throw new RangeError(`append 1 to ${APPEND_EVENTS_MAX} events, got ${events.length}`);
  }
  for (const event of events) {
    if (event.data === undefined) throw new TypeError(`event ${event.type}: data is undefined (not JSON)`);
  }
};

/**
 * A short page read every event after `after` below the horizon (transactions older than every one
 * running: visible and final), matching or not: the last of them is how far it looked.
 */
function scannedTo(row: ReadAllRow | undefined, after: Position): Position | null {
  if (!row?.head_commit || !row.head_prepare) return null;
  const head = { commit: BigInt(row.head_commit), prepare: BigInt(row.head_prepare) };
  return comparePositions(head, after) > 0 ? head : null;
}
