-- Up Migration
-- Restricted and rolling API keys (scopes, expiry, last use) and the audit trail.
-- A key's `status` stays 'active' until revoked: 'expired' is read from `expires_at`, so a rolled key
-- stops working at the instant its overlap ends without anyone writing to it.
ALTER TABLE gw_api_keys
  ADD COLUMN scopes text[] NOT NULL DEFAULT '{*}',
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz,
  -- The secret's first 3 and last 4 characters; null for keys issued before it was kept.
  ADD COLUMN redacted text,
  ADD CONSTRAINT gw_api_keys_scopes_not_empty CHECK (cardinality(scopes) > 0);
CREATE INDEX gw_api_keys_integrator ON gw_api_keys (integrator_id, created_at DESC, id DESC);

-- Who changed what, on whose behalf, by which request. Append-only: no route changes or deletes a row,
-- and the database refuses it too (the trigger below, whatever the role; REVOKE for roles that are
-- not the owner's superuser).
CREATE TABLE gw_audit_events (
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id text PRIMARY KEY,
  action text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'admin', 'finance_key')),
  actor_id text,
  integrator_id text,
  target_object text NOT NULL,
  target_id text NOT NULL,
  request_id text,
  created_at timestamptz NOT NULL
);
CREATE INDEX gw_audit_events_integrator ON gw_audit_events (integrator_id, seq DESC);
CREATE INDEX gw_audit_events_created_at ON gw_audit_events (created_at);

CREATE FUNCTION gw_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER gw_audit_events_no_update_delete BEFORE UPDATE OR DELETE ON gw_audit_events
  FOR EACH ROW EXECUTE FUNCTION gw_audit_events_append_only();
CREATE TRIGGER gw_audit_events_no_truncate BEFORE TRUNCATE ON gw_audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION gw_audit_events_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON gw_audit_events FROM PUBLIC;
DO $$ BEGIN EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON gw_audit_events FROM %I', current_user); END $$;

-- Down Migration
DROP TABLE gw_audit_events;
DROP FUNCTION gw_audit_events_append_only();
DROP INDEX gw_api_keys_integrator;
ALTER TABLE gw_api_keys DROP CONSTRAINT gw_api_keys_scopes_not_empty, DROP COLUMN redacted, DROP COLUMN last_used_at, DROP COLUMN expires_at, DROP COLUMN scopes;
