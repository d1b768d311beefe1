-- Up Migration
-- At most one open (pending or in flight) delivery of an event to an endpoint, whichever path queued it
-- (recover, bulk redelivery, an explicit redelivery): concurrent calls cannot queue the event twice.
-- Copies already queued twice are canceled first, the oldest kept.
UPDATE wh_deliveries SET status = 'canceled', next_attempt_at = NULL, lease_until = NULL
WHERE id IN (
  SELECT id FROM (
    SELECT id, row_number() OVER (PARTITION BY endpoint_id, event_id ORDER BY created_at, id) AS n
    FROM wh_deliveries WHERE status IN ('pending', 'delivering')) AS open
  WHERE n > 1);
CREATE UNIQUE INDEX wh_deliveries_one_open ON wh_deliveries (endpoint_id, event_id) WHERE status IN ('pending', 'delivering');

-- Down Migration
DROP INDEX wh_deliveries_one_open;
