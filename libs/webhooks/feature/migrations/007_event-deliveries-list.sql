-- Up Migration
-- An event's deliveries are a list, oldest first, paged by (created_at, id): an index in that order.
CREATE INDEX wh_deliveries_by_event_listed ON wh_deliveries (event_id, created_at, id);
DROP INDEX wh_deliveries_by_event;

-- Down Migration
CREATE INDEX wh_deliveries_by_event ON wh_deliveries (event_id);
DROP INDEX wh_deliveries_by_event_listed;
