-- Up Migration
-- An integrator's redeliveries of the last window, counted when one more is asked for.
CREATE INDEX wh_deliveries_redelivered ON wh_deliveries (created_at, endpoint_id) WHERE origin = 'redeliver';

-- Down Migration
DROP INDEX wh_deliveries_redelivered;
