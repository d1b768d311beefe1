-- Up Migration
-- The console's search looks an order reference up across integrators: an index that leads with it
-- (the list's index leads with the integrator, so it cannot serve a search without one).
CREATE INDEX payment_views_by_reference ON payment_views (order_reference, seq DESC);

-- Down Migration
DROP INDEX payment_views_by_reference;
