-- Up Migration
-- The back office's search finds cash payments by order or payment reference across integrators:
-- indexes with the reference first (the list's indexes start with the integrator).
CREATE INDEX cash_payment_views_by_order_reference_any ON cash_payment_views (order_reference, seq DESC);
CREATE INDEX cash_payment_views_by_payment_reference_any ON cash_payment_views (payment_reference, seq DESC);

-- Down Migration
DROP INDEX cash_payment_views_by_order_reference_any, cash_payment_views_by_payment_reference_any;
