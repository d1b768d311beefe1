-- Up Migration
-- The list of cash payments (newest first, filters) is served from this projection: it keeps each cash
-- payment's folded state and the columns the list filters on. Rows projected before this migration
-- lack them: the projection is rebuilt from the streams (its checkpoint is reset).
TRUNCATE cash_payment_views;
DELETE FROM es_checkpoints WHERE subscription_id = 'cash.cash-payment-views';
ALTER TABLE cash_payment_views
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  ADD COLUMN order_reference text NOT NULL,
  ADD COLUMN payment_reference text NOT NULL,
  ADD COLUMN created_at timestamptz NOT NULL,
  ADD COLUMN state jsonb NOT NULL;
CREATE INDEX cash_payment_views_list ON cash_payment_views (integrator_id, seq DESC);
CREATE INDEX cash_payment_views_by_status ON cash_payment_views (integrator_id, status, seq DESC);
CREATE INDEX cash_payment_views_by_order_reference ON cash_payment_views (integrator_id, order_reference, seq DESC);
CREATE INDEX cash_payment_views_by_payment_reference ON cash_payment_views (integrator_id, payment_reference, seq DESC);
CREATE INDEX cash_payment_views_by_created_at ON cash_payment_views (integrator_id, created_at DESC);

-- Down Migration
DROP INDEX cash_payment_views_by_created_at, cash_payment_views_by_payment_reference, cash_payment_views_by_order_reference, cash_payment_views_by_status, cash_payment_views_list;
ALTER TABLE cash_payment_views DROP COLUMN state, DROP COLUMN created_at, DROP COLUMN payment_reference, DROP COLUMN order_reference, DROP COLUMN seq;
