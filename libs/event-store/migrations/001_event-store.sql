-- Up Migration
-- One row per stream: its last revision. Appends check and bump it in the same statement, so the
-- row lock serialises writers of one stream and a stale expected revision matches no row.
CREATE TABLE es_streams (
  stream_id text PRIMARY KEY CHECK (length(stream_id) BETWEEN 1 AND 200),
  revision bigint NOT NULL CHECK (revision >= 0)
);

-- The global order is (transaction_id, position), not position alone: a bigserial is taken before
-- commit, so positions can become visible out of order; readers only read transactions older than
-- every running one (pg_snapshot_xmin), which makes the order gap-free.
-- No foreign key to es_streams: every append writes the stream row in the same statement.
CREATE TABLE es_events (
  position bigserial PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id text NOT NULL,
  revision bigint NOT NULL CHECK (revision >= 0),
  event_id uuid NOT NULL UNIQUE,
  type text NOT NULL CHECK (length(type) BETWEEN 1 AND 200),
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_id, revision)
);
CREATE INDEX es_events_global_order ON es_events (transaction_id, position);

-- A subscription's last handled position, written in the transaction of the batch it follows.
-- numeric: positions are unsigned 64-bit (xid8, EventStoreDB) and START is -1.
CREATE TABLE es_checkpoints (
  subscription_id text PRIMARY KEY CHECK (length(subscription_id) BETWEEN 1 AND 200),
  commit_position numeric(20, 0) NOT NULL,
  prepare_position numeric(20, 0) NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE es_checkpoints;
DROP TABLE es_events;
DROP TABLE es_streams;
