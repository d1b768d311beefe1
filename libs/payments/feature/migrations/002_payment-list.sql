-- Up Migration
-- The list of payments (newest first, filters) is served from this projection: it keeps each payment's
-- folded state and the columns the list filters on. Rows projected before this migration lack them:
-- the projection is rebuilt from the streams (its checkpoint is reset).
TRUNCATE payment_views;
DELETE FROM es_checkpoints WHERE subscription_id = 'payments.payment-views';
ALTER TABLE payment_views
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  ADD COLUMN order_reference text NOT NULL,
  ADD COLUMN merchant_connection text NOT NULL,
  ADD COLUMN created_at timestamptz NOT NULL,
  ADD COLUMN state jsonb NOT NULL;
CREATE INDEX payment_views_list ON payment_views (integrator_id, seq DESC);
CREATE INDEX payment_views_by_status ON payment_views (integrator_id, status, seq DESC);
CREATE INDEX payment_views_by_order_reference ON payment_views (integrator_id, order_reference, seq DESC);
CREATE INDEX payment_views_by_merchant ON payment_views (integrator_id, merchant_connection, seq DESC);
CREATE INDEX payment_views_by_created_at ON payment_views (integrator_id, created_at DESC);

-- Down Migration
DROP INDEX payment_views_by_created_at, payment_views_by_merchant, payment_views_by_order_reference, payment_views_by_status, payment_views_list;
ALTER TABLE payment_views DROP COLUMN state, DROP COLUMN created_at, DROP COLUMN merchant_connection, DROP COLUMN order_reference, DROP COLUMN seq;
