-- Up Migration
-- Endpoints can be disabled (by the integrator, or by the service after failing for 5 days), and keep
-- their previous secret for 24 hours after a rotation (deliveries carry both signatures meanwhile).
ALTER TABLE wh_endpoints
  ADD COLUMN status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  ADD COLUMN disabled_reason text,
  ADD COLUMN previous_secret text,
  ADD COLUMN previous_secret_until timestamptz,
  -- On the service clock: when the current run of failed attempts began (null after a success).
  ADD COLUMN failing_since timestamptz;
-- An endpoint's deliveries, newest first, with the status filter.
CREATE INDEX wh_deliveries_by_endpoint ON wh_deliveries (endpoint_id, created_at DESC, id DESC);

-- Down Migration
DROP INDEX wh_deliveries_by_endpoint;
ALTER TABLE wh_endpoints DROP COLUMN failing_since, DROP COLUMN previous_secret_until, DROP COLUMN previous_secret, DROP COLUMN disabled_reason, DROP COLUMN status;
