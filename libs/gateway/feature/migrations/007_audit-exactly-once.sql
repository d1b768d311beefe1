-- Up Migration
-- The audit trail exactly once. A change the gateway stores itself is recorded in the change's own
-- transaction. A change another app makes over the bus gets an intent first (before the request is
-- dispatched); its answer turns the intent into the event in one transaction, and a sweeper settles
-- the intents a crash left behind by reading the target back.
--
-- `operation_key` makes a repeat a no-op (INSERT … ON CONFLICT DO NOTHING): `<action> <target id>` for
-- a change that happens once to its target (a create, a cancel, a revoke, a delete), the intent's id
-- for one that may happen again (a webhook endpoint's update or secret rotation), null for events
-- recorded before it existed. Adding a nullable column writes no row: the append-only trigger holds.
ALTER TABLE gw_audit_events ADD COLUMN operation_key text;
CREATE UNIQUE INDEX gw_audit_events_operation_key ON gw_audit_events (operation_key);

-- A change dispatched to its owning app, not settled yet. Holds ids only, like the events.
CREATE TABLE gw_audit_intents (
  id text PRIMARY KEY,
  operation_key text NOT NULL,
  action text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'admin', 'finance_key')),
  actor_id text,
  integrator_id text,
  target_object text NOT NULL,
  target_id text NOT NULL,
  request_id text,
  -- What the sweeper needs to read the outcome back (e.g. the fields an update asked for).
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL
);
CREATE INDEX gw_audit_intents_created_at ON gw_audit_intents (created_at);

-- Down Migration
DROP TABLE gw_audit_intents;
DROP INDEX gw_audit_events_operation_key;
ALTER TABLE gw_audit_events DROP COLUMN operation_key;
