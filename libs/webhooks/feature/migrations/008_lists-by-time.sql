-- Up Migration
-- Events and endpoints are listed newest first by created_at, then seq among equal times: seq alone is
-- the order the rows were inserted, which concurrent requests (and events recorded late by the relay) do
-- not keep. One index per filter in that order.
CREATE INDEX wh_events_list_by_time ON wh_events (integrator_id, created_at DESC, seq DESC);
CREATE INDEX wh_events_by_type_by_time ON wh_events (integrator_id, type, created_at DESC, seq DESC);
CREATE INDEX wh_events_by_object_by_time ON wh_events (integrator_id, object_id, created_at DESC, seq DESC);
DROP INDEX wh_events_by_integrator, wh_events_by_type, wh_events_by_object, wh_events_by_created_at;
CREATE INDEX wh_endpoints_list_by_time ON wh_endpoints (integrator_id, created_at DESC, seq DESC) WHERE deleted_at IS NULL;
DROP INDEX wh_endpoints_by_integrator;

-- Down Migration
CREATE INDEX wh_endpoints_by_integrator ON wh_endpoints (integrator_id, seq DESC) WHERE deleted_at IS NULL;
DROP INDEX wh_endpoints_list_by_time;
CREATE INDEX wh_events_by_integrator ON wh_events (integrator_id, seq DESC);
CREATE INDEX wh_events_by_type ON wh_events (integrator_id, type, seq DESC);
CREATE INDEX wh_events_by_object ON wh_events (integrator_id, object_id, seq DESC);
CREATE INDEX wh_events_by_created_at ON wh_events (integrator_id, created_at DESC);
DROP INDEX wh_events_list_by_time, wh_events_by_type_by_time, wh_events_by_object_by_time;
