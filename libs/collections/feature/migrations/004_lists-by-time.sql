-- Up Migration
-- The list is newest first by created_at (the request's time), then seq among equal times: seq alone is
-- the order the projection inserted the rows, which concurrent requests do not keep. One index per filter.
CREATE INDEX collection_views_list_by_time ON collection_views (integrator_id, created_at DESC, seq DESC);
CREATE INDEX collection_views_by_status_by_time ON collection_views (integrator_id, status, created_at DESC, seq DESC);
CREATE INDEX collection_views_by_order_reference_by_time ON collection_views (integrator_id, order_reference, created_at DESC, seq DESC);
DROP INDEX collection_views_list, collection_views_by_status, collection_views_by_order_reference, collection_views_by_created_at;

-- Down Migration
CREATE INDEX collection_views_list ON collection_views (integrator_id, seq DESC);
CREATE INDEX collection_views_by_status ON collection_views (integrator_id, status, seq DESC);
CREATE INDEX collection_views_by_order_reference ON collection_views (integrator_id, order_reference, seq DESC);
CREATE INDEX collection_views_by_created_at ON collection_views (integrator_id, created_at DESC);
DROP INDEX collection_views_list_by_time, collection_views_by_status_by_time, collection_views_by_order_reference_by_time;
