-- Up Migration
-- Filters of the events list (type, object, creation time), each served by an index in list order.
CREATE INDEX wh_events_by_type ON wh_events (integrator_id, type, seq DESC);
CREATE INDEX wh_events_by_object ON wh_events (integrator_id, object_id, seq DESC);
CREATE INDEX wh_events_by_created_at ON wh_events (integrator_id, created_at DESC);

-- Down Migration
DROP INDEX wh_events_by_created_at, wh_events_by_object, wh_events_by_type;
