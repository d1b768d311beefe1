-- Up Migration
-- The console's search looks an order or payment reference up across integrators: indexes that lead
-- with them (the list's lead with the integrator).
CREATE INDEX cash_payment_views_by_order_ref ON cash_payment_views (order_reference, seq DESC);
CREATE INDEX cash_payment_views_by_payment_ref ON cash_payment_views (payment_reference, seq DESC);

-- Down Migration
DROP INDEX cash_payment_views_by_order_ref, cash_payment_views_by_payment_ref;
