-- Up Migration
-- The back office's search finds supplier payments by invoice reference across integrators: an index
-- with the reference first (the list's index starts with the integrator).
CREATE INDEX sp_supplier_payment_views_by_invoice_any ON sp_supplier_payment_views (invoice_reference, seq DESC);

-- Down Migration
DROP INDEX sp_supplier_payment_views_by_invoice_any;
