import { STREAMS_READ_MAX } from '@pay/kernel';
/**
 * The event store port: one stream per aggregate, appends with an expected revision, a global order
 * over all streams, and reads from any position for catch-up subscriptions. Two adapters: PostgreSQL
 * (embedded default) and EventStoreDB (distributed topology); both pass the same contract suite.
 */

/** What a writer appends. `id` is generated when absent; a JSON-serialisable payload only. */
export interface EventData<Type extends string = string, Data = unknown> {
  id?: string;
  type: Type;
  data: Data;
  metadata?: Record<string, unknown>;
}

/**
 * A position in the global order ($all). Opaque outside the adapter: compare with `comparePositions`.
 * PostgreSQL: commit = the appending transaction id, prepare = its row's sequence number.
 * EventStoreDB: its own commit/prepare positions.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: -1n, prepare: -1n };

export const comparePositions = (a: Position, b: Position): number =>
  a.commit === b.commit ? (a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1) : a.commit < b.commit ? -1 : 1;

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  streamId: string;
  /** 0 for a stream's first event. */
  revision: bigint;
  position: Position;
  type: Type;
  data: Data;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/** `no_stream`: the stream must not exist; `any`: no check; a bigint: the stream's last revision. */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface AppendResult {
  /** The revision of the last event appended. */
  nextExpectedRevision: bigint;
  position: Position;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)} does not match`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. */
  after: Position;
  maxCount: number;
  /** Only events whose type starts with one of these prefixes. */
  typePrefixes?: readonly string[];
}

/** A page of `readAll`, and how far the read looked. */
export interface ReadAllPage {
  events: RecordedEvent[];
  /**
   * When the page is short (fewer than `maxCount` events): the position of the last event of any
   * type the read passed over, every event up to it being visible and final (so none of those types
   * will ever appear at or before it); null when the read saw nothing after `after`, or the page is
   * full. A reader filtering by type may resume after it: without it, a filter that matches nothing
   * would rescan every newer event of other types on each read.
   */
  scannedTo: Position | null;
}

/** A literal prefix match (what readAll's typePrefixes select); no prefixes match every type. */
export const matchesTypePrefixes = (type: string, prefixes: readonly string[]): boolean =>
  prefixes.length === 0 || prefixes.some((prefix) => type.startsWith(prefix));

/** What onAppended calls: `types`, the event types appended (a superset is allowed), or undefined when unknown. */
export type AppendListener = (types?: ReadonlySet<string>) => void;

export interface EventStore {
  appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** The whole stream in revision order; an empty array when the stream does not exist. */
  readStream(streamId: string): Promise<RecordedEvent[]>;
  /** Several whole streams at once (at most STREAMS_READ_MAX), each as readStream gives it: every id asked is a key. */
  readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>>;
  /**
   * One event of a stream by its id (an operator's replay of a parked event), null when the stream
   * has none. The stream is named: EventStoreDB has no index from an event id to its event.
   */
  readEvent(streamId: string, eventId: string): Promise<RecordedEvent | null>;
  /**
   * Events after a position, in global order, never skipping one that commits later: an event that
   * is not yet visible is waited for rather than overtaken.
   */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** readAll, with how far the read looked (ReadAllPage.scannedTo). */
  readAllPage(options: ReadAllOptions): Promise<ReadAllPage>;
  /**
   * Calls `listener` after appends (in this process or, where the adapter can, any process), with the
   * types of the events appended since its last call when the adapter knows them (undefined: any type),
   * so that a subscription wakes only for the events it reads.
   */
  onAppended(listener: AppendListener): () => void;
  /**
   * Optional: a token of the store's commits, read by a statement sent at or after `notBefore` (a
   * `performance.now()` time). Two equal tokens mean that no event became readable between their reads,
   * so a subscription caught up by a read that began after the first has nothing new to read. Without
   * it, subscriptions read at every poll.
   */
  commitToken?(notBefore: number): Promise<string>;
  close(): Promise<void>;
}

/** readStreams' bounds, the same in every adapter. */
export const assertStreamsReadable = (streamIds: readonly string[]): void => {
  if (streamIds.length > STREAMS_READ_MAX) throw new RangeError(`read at most ${STREAMS_READ_MAX} streams at once, got ${streamIds.length}`);
  if (streamIds.some((id) => id.length === 0)) throw new RangeError('stream id is empty');
};
