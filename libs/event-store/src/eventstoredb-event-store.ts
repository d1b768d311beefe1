import {
  ANY,
  type AllStreamRecordedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  BACKWARDS,
  END,
  EventStoreDBClient,
  type EventData as EsdbEventData,
  type EventType as EsdbEventType,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  type JSONType,
  NO_STREAM,
  type Position as EsdbPosition,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
  START as ESDB_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  APPEND_EVENTS_MAX,
  ESDB_RESUBSCRIBE_DELAY_MS_DEFAULT,
  ESDB_RESUBSCRIBE_DELAY_MS_MAX,
  ESDB_SCAN_PAGE_SIZE_DEFAULT,
  ESDB_SCAN_PAGE_SIZE_MAX,
  ESDB_SCAN_PAGE_SIZE_MIN,
  READ_ALL_COUNT_MAX,
  STREAM_LENGTH_MAX,
  TYPE_PREFIXES_MAX,
} from '@pay/kernel';
import {
  type AppendListener,
  type AppendResult,
  comparePositions,
  matchesTypePrefixes,
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EventStoreDBEventStoreOptions {
  /** Raw $all events per read while readAll scans for matching ones: 2 to 10000, default 1000. */
  scanPageSize?: number;
  /** Delay before the onAppended subscription is restarted after it dropped: default 1000. */
  resubscribeDelayMs?: number;
}

/**
 * The event store on EventStoreDB (the distributed topology). One ESDB stream per stream id; the
 * global order is ESDB's $all, positions are its commit/prepare pair. `close` disposes the client.
 *
 * readAll filters type prefixes in this process, not on the server: @eventstore/db-client 6.2.1's
 * readAll sends no filter (server-side filtered reads reached the Node client only in its successor,
 * @kurrent/kurrentdb-client). So a reader whose prefixes are rare scans every event after its
 * position, in pages; that scan cannot stop early, because the port has no way to hand back "scanned
 * up to here" and a subscription would otherwise never move past a stretch of non-matching events.
 *
 * Unlike the PostgreSQL adapter, ids are not unique across streams, and ESDB answers an append of
 * event ids it already holds at that revision as an idempotent success instead of appending again.
 */
export class EventStoreDBEventStore implements EventStore {
  private readonly scanPageSize: number;
  private readonly resubscribeDelayMs: number;
  private readonly listeners = new Set<AppendListener>();
  private subscription: AllStreamSubscription | undefined;
  private resubscribeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    options: EventStoreDBEventStoreOptions = {},
  ) {
    this.scanPageSize = options.scanPageSize ?? ESDB_SCAN_PAGE_SIZE_DEFAULT;
    this.resubscribeDelayMs = options.resubscribeDelayMs ?? ESDB_RESUBSCRIBE_DELAY_MS_DEFAULT;
    assertIntegerIn('scanPageSize', this.scanPageSize, ESDB_SCAN_PAGE_SIZE_MIN, ESDB_SCAN_PAGE_SIZE_MAX);
    assertIntegerIn('resubscribeDelayMs', this.resubscribeDelayMs, 1, ESDB_RESUBSCRIBE_DELAY_MS_MAX);
  }

  /** e.g. `esdb://eventstore:2113?tls=false`. */
  static fromConnectionString(url: string, options: EventStoreDBEventStoreOptions = {}): EventStoreDBEventStore {
    return new EventStoreDBEventStore(EventStoreDBClient.connectionString(url), options);
  }

  async appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    assertAppendable(streamId, events);
    const expectedRevision = toEsdbExpectedRevision(options.expectedRevision);
    const result = await this.client.appendToStream(streamId, events.map(toEsdbEventData), { expectedRevision }).catch((error: unknown) => {
      throw error instanceof WrongExpectedVersionError ? new WrongExpectedRevisionError(streamId, options.expectedRevision) : error;
    });
    if (!result.success) throw new WrongExpectedRevisionError(streamId, options.expectedRevision);
    if (!result.position) throw new Error(`EventStoreDB returned no position for the append to ${streamId}`);
    return { nextExpectedRevision: result.nextExpectedRevision, position: fromEsdbPosition(result.position) };
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, { fromRevision: ESDB_START, direction: FORWARDS, maxCount: STREAM_LENGTH_MAX + 1 });
      for await (const resolved of read) {
        if (resolved.event) events.push(toRecordedEvent(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    if (events.length > STREAM_LENGTH_MAX) throw new RangeError(`stream ${streamId} is longer than ${STREAM_LENGTH_MAX} events`);
    return events;
  }

  /** Each stream read on its own, at once: EventStoreDB reads one stream per call. */
  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    assertStreamsReadable(streamIds);
    const ids = [...new Set(streamIds)];
    return new Map(await Promise.all(ids.map(async (id) => [id, await this.readStream(id)] as const)));
  }

  /** Reads the stream (an aggregate's: short, see STREAM_LENGTH_MAX) and picks the event. */
  async readEvent(streamId: string, eventId: string): Promise<RecordedEvent | null> {
    const wanted = eventId.toLowerCase();
    return (await this.readStream(streamId)).find((event) => event.id.toLowerCase() === wanted) ?? null;
  }

  /**
   * Pages through $all from `after` until `maxCount` events match or $all ends. ESDB reads from a
   * position inclusively, so `after` itself (and the last event of the previous page) is skipped.
   * System events ($-types, $-streams, links) are never returned.
   */
  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return (await this.readAllPage(options)).events;
  }

  async readAllPage({ after, maxCount, typePrefixes = [] }: ReadAllOptions): Promise<ReadAllPage> {
    if (!Number.isInteger(maxCount) || maxCount < 1 || maxCount > READ_ALL_COUNT_MAX) {
      throw new RangeError(`maxCount must be an integer from 1 to ${READ_ALL_COUNT_MAX}, got ${maxCount}`);
    }
    if (typePrefixes.length > TYPE_PREFIXES_MAX) throw new RangeError(`at most ${TYPE_PREFIXES_MAX} type prefixes`);
    // Without prefixes nearly every event matches: read little more than asked (+1 for `after` itself).
    const pageSize = typePrefixes.length === 0 ? Math.min(maxCount + 1, this.scanPageSize) : this.scanPageSize;
    const found: RecordedEvent[] = [];
    let cursor = after;
    for (;;) {
      const page = await this.readPage(cursor, pageSize);
      const pageStart = cursor;
      for (const event of page.events) {
        if (!isAfter(event.position, cursor)) continue;
        cursor = fromEsdbPosition(event.position);
        if (isSystemEvent(event) || !matchesTypePrefixes(event.type, typePrefixes)) continue;
        found.push(toRecordedEvent(event));
        if (found.length === maxCount) return { events: found, scannedTo: null };
      }
      // The end of $all (in order, every event final): the last one looked at, whatever its type.
      if (page.count < pageSize) return { events: found, scannedTo: comparePositions(cursor, after) > 0 ? cursor : null };
      if (comparePositions(cursor, pageStart) === 0) throw new Error(`readAll made no progress after ${cursor.commit}/${cursor.prepare}`);
    }
  }

  /**
   * Calls listeners after events are appended, by any process: one subscription to $all from its
   * end (system events filtered out on the server), started with the first listener and stopped
   * with the last. Listeners are also called once the subscription is (re)established, since
   * appends made while it was connecting are not delivered to it: they are wake-ups, not events.
   */
  onAppended(listener: AppendListener): () => void {
    if (this.closed) return () => undefined;
    this.listeners.add(listener);
    this.subscribe();
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) void this.unsubscribe();
    };
  }

  /**
   * Whether the server answers now (for /ready): the last event of $all, at most one, read under a
   * gRPC deadline of `timeoutMs`. Rejects when it cannot be read in time.
   */
  async ping(timeoutMs: number): Promise<void> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, deadline: timeoutMs });
    // Leaving the loop closes the read; the event itself is not needed.
    for await (const resolved of read) if (resolved) break;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await this.unsubscribe();
    await this.client.dispose();
  }

  private async readPage(from: Position, pageSize: number): Promise<{ events: AllStreamRecordedEvent[]; count: number }> {
    const events: AllStreamRecordedEvent[] = [];
    let count = 0;
    for await (const resolved of this.client.readAll({ fromPosition: toEsdbReadPosition(from), direction: FORWARDS, maxCount: pageSize })) {
      count += 1;
      if (resolved.event) events.push(resolved.event);
    }
    return { events, count };
  }

  private subscribe(): void {
    if (this.subscription || this.resubscribeTimer || this.closed || this.listeners.size === 0) return;
    const subscription = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.subscription = subscription;
    subscription.on('confirmation', () => this.notify(undefined));
    subscription.on('data', (resolved: { event?: { type: string } }) => this.notify(resolved.event ? new Set([resolved.event.type]) : undefined));
    subscription.on('error', () => this.dropped(subscription));
    subscription.on('end', () => this.dropped(subscription));
  }

  private dropped(subscription: AllStreamSubscription): void {
    if (this.subscription !== subscription) return; // already stopped or replaced
    this.subscription = undefined;
    if (this.closed || this.listeners.size === 0) return;
    this.resubscribeTimer = setTimeout(() => {
      this.resubscribeTimer = undefined;
      this.subscribe();
    }, this.resubscribeDelayMs);
    this.resubscribeTimer.unref();
  }

  private async unsubscribe(): Promise<void> {
    clearTimeout(this.resubscribeTimer);
    this.resubscribeTimer = undefined;
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.unsubscribe().catch(() => undefined);
  }

  private notify(types: ReadonlySet<string> | undefined): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(types);
      } catch {
        // A listener's failure is its own; the append has happened.
      }
    }
  }
}

// ---- mapping between the port and the client (pure; exported for the unit tests) ----

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  if (expected < 0n) throw new RangeError(`expected revision ${expected} is negative`);
  return expected;
}

export const fromEsdbPosition = (position: EsdbPosition): Position => ({ commit: position.commit, prepare: position.prepare });

/** START (or any negative commit) reads from the beginning of $all; any other position as is. */
export function toEsdbReadPosition(position: Position): ReadPosition {
  if (position.commit < 0n) return ESDB_START;
  if (position.prepare < 0n) throw new RangeError(`position ${position.commit}/${position.prepare} has a negative prepare`);
  return { commit: position.commit, prepare: position.prepare };
}

/** Whether `position` is strictly after `after` in the global order (readAll's exclusive bound). */
export const isAfter = (position: EsdbPosition, after: Position): boolean => comparePositions(fromEsdbPosition(position), after) > 0;

/** ESDB's own events: $-prefixed types (including links, `$>`) or $-prefixed streams ($stats-…, $settings). */
export const isSystemEvent = (event: { type: string; streamId: string }): boolean => event.type.startsWith('$') || event.streamId.startsWith('$');

export function toEsdbEventData(event: EventData): EsdbEventData {
  return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata: event.metadata ?? {} });
}

/** Positions on stream reads need EventStoreDB 22.6 or later (older servers leave them out). */
export function toRecordedEvent(event: EsdbRecordedEvent<EsdbEventType>): RecordedEvent {
  if (!event.position) throw new Error(`EventStoreDB returned event ${event.id} without its $all position (EventStoreDB 22.6 or later is required)`);
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: fromEsdbPosition(event.position),
    type: event.type,
    data: event.data,
    metadata: isPlainObject(event.metadata) ? event.metadata : {},
    createdAt: event.created,
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

function assertAppendable(streamId: string, events: readonly EventData[]): void {
  if (streamId.length === 0) throw new RangeError('stream id is empty');
  if (events.length === 0 || events.length > APPEND_EVENTS_MAX) {
    throw new RangeError(`append 1 to ${APPEND_EVENTS_MAX} events, got ${events.length}`);
  }
  for (const event of events) {
    if (event.data === undefined) throw new TypeError(`event ${event.type}: data is undefined (not JSON)`);
    if (event.id !== undefined && !UUID.test(event.id)) throw new TypeError(`event ${event.type}: id ${event.id} is not a UUID`);
  }
}

function assertIntegerIn(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
}
