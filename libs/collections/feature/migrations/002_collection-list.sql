-- Up Migration
-- The list of collections (newest first, filters) is served from this projection: it keeps each
-- collection's folded state and the columns the list filters on. Rows projected before this migration
-- lack them: the projection is rebuilt from the streams (its checkpoint is reset).
TRUNCATE collection_views;
DELETE FROM es_checkpoints WHERE subscription_id = 'collections.collection-views';
ALTER TABLE collection_views
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  ADD COLUMN order_reference text NOT NULL,
  ADD COLUMN created_at timestamptz NOT NULL,
  ADD COLUMN state jsonb NOT NULL;
CREATE INDEX collection_views_list ON collection_views (integrator_id, seq DESC);
CREATE INDEX collection_views_by_status ON collection_views (integrator_id, status, seq DESC);
CREATE INDEX collection_views_by_order_reference ON collection_views (integrator_id, order_reference, seq DESC);
CREATE INDEX collection_views_by_created_at ON collection_views (integrator_id, created_at DESC);

-- Down Migration
DROP INDEX collection_views_by_created_at, collection_views_by_order_reference, collection_views_by_status, collection_views_list;
ALTER TABLE collection_views DROP COLUMN state, DROP COLUMN created_at, DROP COLUMN order_reference, DROP COLUMN seq;
