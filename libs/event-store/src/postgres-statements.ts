import { READ_ALL_PENDING_LOOK_MAX } from '@pay/kernel';
import { jsonbElements } from '@pay/platform';
import type { RecordedEvent } from './event-store';

/**
 * The SQL of the PostgreSQL adapter, as named (prepared) statements. bigints and xid8 are selected as
 * text: the platform pool parses int8 into JS numbers, and positions must stay exact bigints.
 */

/** Parameters of every append: $1 stream, $2..$5 the events as parallel arrays, $6 their count. */
const APPENDED_EVENTS = `unnest($2::uuid[], $3::text[], ${jsonbElements(4)}, ${jsonbElements(5)}) WITH ORDINALITY AS e(event_id, type, data, metadata, ordinal)`;

/**
 * `stream` yields one row (the revision before this append) when the expectation holds, none
 * otherwise; the events are inserted after it, in one statement, so the append is one round trip.
 */
const appendAfter = (stream: string): string => `
WITH stream AS (${stream}),
inserted AS (
  INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
  SELECT $1::text, stream.previous_revision + e.ordinal, e.event_id, e.type, e.data, e.metadata
  FROM stream, ${APPENDED_EVENTS}
  ORDER BY e.ordinal
  RETURNING transaction_id, position, revision
)
SELECT transaction_id::text AS commit, position::text AS prepare, revision::text AS revision
FROM inserted ORDER BY position DESC LIMIT 1`;

export const APPEND_NO_STREAM = {
  name: 'es_append_no_stream',
  text: appendAfter(`
    INSERT INTO es_streams (stream_id, revision) VALUES ($1::text, $6::bigint - 1)
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING -1::bigint AS previous_revision`),
};

/** $7: the expected last revision; a concurrent writer holding the row makes this one re-check it. */
export const APPEND_EXPECTED_REVISION = {
  name: 'es_append_expected_revision',
  text: appendAfter(`
    UPDATE es_streams SET revision = revision + $6::bigint
    WHERE stream_id = $1::text AND revision = $7::bigint
    RETURNING revision - $6::bigint AS previous_revision`),
};

export const APPEND_ANY = {
  name: 'es_append_any',
  text: appendAfter(`
    INSERT INTO es_streams AS s (stream_id, revision) VALUES ($1::text, $6::bigint - 1)
    ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + $6::bigint
    RETURNING s.revision - $6::bigint AS previous_revision`),
};

/**
 * Appends to several streams in one statement (group commit), each with its expectation: $1 the
 * streams (each at most once), $2 each one's expectation (`no_stream` or `revision`), $3 its expected
 * revision (null for no_stream), $4 its count of events; $5..$10 every event, by the index of its
 * append (1-based) and its ordinal in it. An append whose expectation fails writes nothing and gets a
 * row of nulls: the others are written. The events are inserted in the group's order.
 */
export const APPEND_MANY = {
  name: 'es_append_many',
  text: `
WITH appends AS MATERIALIZED (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS a (stream_id, expectation, expected, count, n)
), created AS (
  INSERT INTO es_streams (stream_id, revision)
  SELECT stream_id, count - 1 FROM appends WHERE expectation = 'no_stream' ORDER BY n
  ON CONFLICT (stream_id) DO NOTHING
  RETURNING stream_id, -1::bigint AS previous_revision
), moved AS (
  -- The = ANY finds the rows by the primary key (joined on the unnest alone, a generic plan may scan the table).
  UPDATE es_streams s SET revision = s.revision + a.count FROM appends a
  WHERE a.expectation = 'revision' AND s.stream_id = ANY ($1::text[]) AND s.stream_id = a.stream_id AND s.revision = a.expected
  RETURNING s.stream_id, s.revision - a.count AS previous_revision
), streams AS (
  SELECT * FROM created UNION ALL SELECT * FROM moved
), inserted AS (
  INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
  SELECT a.stream_id, streams.previous_revision + e.ordinal, e.event_id, e.type, e.data, e.metadata
  FROM unnest($5::bigint[], $6::bigint[], $7::uuid[], $8::text[], ${jsonbElements(9)}, ${jsonbElements(10)}) AS e (append, ordinal, event_id, type, data, metadata)
  JOIN appends a ON a.n = e.append JOIN streams ON streams.stream_id = a.stream_id
  ORDER BY e.append, e.ordinal
  RETURNING stream_id, transaction_id, position, revision
)
SELECT last.commit, last.prepare, last.revision FROM appends a
LEFT JOIN LATERAL (
  SELECT transaction_id::text AS commit, position::text AS prepare, revision::text AS revision
  FROM inserted WHERE inserted.stream_id = a.stream_id ORDER BY position DESC LIMIT 1
) AS last ON true
ORDER BY a.n`,
};

export interface AppendedRow {
  commit: string;
  prepare: string;
  revision: string;
}

/** APPEND_MANY's row of an append whose expectation failed. */
export type AppendedManyRow = AppendedRow | { commit: null; prepare: null; revision: null };

const EVENT_COLUMNS = `transaction_id::text AS commit, position::text AS prepare, stream_id, revision::text AS revision,
  event_id::text AS id, type, data, metadata, created_at`;

/** $2: a limit one above the longest stream we accept, so an overlong stream is detected. */
export const READ_STREAM = {
  name: 'es_read_stream',
  text: `SELECT ${EVENT_COLUMNS} FROM es_events WHERE stream_id = $1::text ORDER BY es_events.revision LIMIT $2::int`,
};

/** $1 the streams; $2 a limit one above the longest stream we accept, per stream (see READ_STREAM). */
export const READ_STREAMS = {
  name: 'es_read_streams',
  text: `SELECT ${EVENT_COLUMNS} FROM unnest($1::text[]) AS wanted (id)
CROSS JOIN LATERAL (SELECT * FROM es_events WHERE stream_id = wanted.id ORDER BY revision LIMIT $2::int) AS es_events
ORDER BY es_events.stream_id, es_events.revision`,
};

/**
 * Changes whenever events may have become readable. While a transaction that appends is open (it holds
 * es_events' RowExclusiveLock from its INSERT to its end), or committed events wait beyond the horizon
 * (READ_ALL), the snapshot (`xmin:xmax:xip`), which changes whenever a transaction ends. Otherwise
 * every event is readable, and the position sequence's last value (taken at each INSERT, cached one at
 * a time) is the token: it stays put while nothing is appended to this database, however busy the other
 * databases of the server are, whose transactions also move the snapshot. A token that changed for
 * nothing costs one read.
 */
export const COMMIT_TOKEN = {
  name: 'es_commit_token',
  text: `SELECT CASE
  WHEN EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'relation' AND relation = 'es_events'::regclass AND mode = 'RowExclusiveLock'
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  ) OR EXISTS (SELECT 1 FROM es_events WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot()))
  THEN pg_current_snapshot()::text
  -- NULL until the sequence's first value is taken (its last_value reads 1 before and after it).
  ELSE 'appended:' || COALESCE(pg_sequence_last_value('es_events_position_seq'), 0)
END AS token`,
};

/** $2 is text: an id that is not a uuid matches no event rather than failing the statement. */
export const READ_EVENT = {
  name: 'es_read_event',
  text: `SELECT ${EVENT_COLUMNS} FROM es_events WHERE stream_id = $1::text AND event_id::text = lower($2::text)`,
};

/**
 * Only transactions older than every running one (below the snapshot's xmin) are read: any
 * transaction that commits later has a larger id, so it sorts after everything returned here.
 * `pending`: committed events matching the filter exist beyond that horizon (an older writer is
 * still open), so a short page is not yet the end; also true when more than READ_ALL_PENDING_LOOK_MAX
 * events lie beyond it (only their first ones are looked at). Always one row; event columns null when none.
 * $4: LIKE patterns, empty for every type.
 */
export const READ_ALL = {
  // Not a named statement: planned at each run, for the store as it is. A service starts on an empty
  // store that grows by thousands of events a minute; a generic plan kept from when it was small read
  // every event (a sequential scan and a sort) on each poll of each subscription.
  text: `WITH horizon AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
SELECT page.*, COALESCE((
    -- The first events past the horizon in index order, then their types. The horizon is known only
    -- at run time, so the planner takes it for a third of the table: with the type filter inside the
    -- scan, a rare type was planned as a scan of every event. More than the look counts as pending.
    SELECT bool_or(cardinality($4::text[]) = 0 OR type LIKE ANY ($4::text[])) OR count(*) = ${READ_ALL_PENDING_LOOK_MAX}
    FROM (
      SELECT type FROM es_events WHERE transaction_id >= (SELECT xmin FROM horizon)
      ORDER BY transaction_id, position LIMIT ${READ_ALL_PENDING_LOOK_MAX}
    ) AS past
  ), false) AS pending, head.head_commit, head.head_prepare
FROM (SELECT 1) AS one
-- The last event below the horizon, of any type: how far a short page looked (ReadAllPage.scannedTo).
LEFT JOIN LATERAL (
  SELECT transaction_id::text AS head_commit, position::text AS head_prepare FROM es_events
  WHERE transaction_id < (SELECT xmin FROM horizon)
  ORDER BY transaction_id DESC, position DESC LIMIT 1
) AS head ON true
LEFT JOIN LATERAL (
  SELECT ${EVENT_COLUMNS} FROM es_events
  WHERE (transaction_id, position) > ($1::xid8, $2::bigint)
    AND transaction_id < (SELECT xmin FROM horizon)
    AND (cardinality($4::text[]) = 0 OR type LIKE ANY ($4::text[]))
  ORDER BY es_events.transaction_id, es_events.position
  LIMIT $3::int
) AS page ON true`,
};

/** The one row of an empty page has only `pending`: its event columns are null. */
export type ReadAllRow = { pending: boolean; head_commit: string | null; head_prepare: string | null } & (EventRow | { id: null });

export interface EventRow {
  commit: string;
  prepare: string;
  stream_id: string;
  revision: string;
  id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row.id,
  streamId: row.stream_id,
  revision: BigInt(row.revision),
  position: { commit: BigInt(row.commit), prepare: BigInt(row.prepare) },
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  createdAt: row.created_at,
});

/** `Payment` → `Payment%`, with LIKE's own wildcards escaped. */
export const toPrefixPattern = (prefix: string): string => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
