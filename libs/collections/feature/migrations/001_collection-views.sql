-- Up Migration
-- Read model of collections, projected from their streams: what the sweeps read (settlements and cash
-- movements decided and not yet recorded; deposits past due_at not yet reported overdue).
CREATE TABLE collection_views (
  collection_id text PRIMARY KEY,
  integrator_id text NOT NULL,
  status text NOT NULL,
  settling boolean NOT NULL DEFAULT false,
  -- Cash movements decided and not yet recorded by the ledger.
  pending_movements integer NOT NULL DEFAULT 0 CHECK (pending_movements >= 0),
  overdue_notified boolean NOT NULL DEFAULT false,
  due_at timestamptz,
  revision bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX collection_views_unfinished ON collection_views (updated_at) WHERE settling OR pending_movements > 0;
CREATE INDEX collection_views_awaiting_deposit ON collection_views (due_at) WHERE status IN ('collected_awaiting_deposit', 'deposit_under_review') AND NOT overdue_notified;

-- Down Migration
DROP TABLE collection_views;
