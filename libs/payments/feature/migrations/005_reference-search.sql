-- Up Migration
-- The back office's search finds payments by order reference across integrators: an index with the
-- reference first (the list's index starts with the integrator).
CREATE INDEX payment_views_by_reference ON payment_views (order_reference, seq DESC);

-- Down Migration
DROP INDEX payment_views_by_reference;
