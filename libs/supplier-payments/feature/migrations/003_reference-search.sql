-- Up Migration
-- The console's search looks an invoice reference up across integrators: an index that leads with it
-- (the list's leads with the integrator).
CREATE INDEX sp_supplier_payment_views_by_reference ON sp_supplier_payment_views (invoice_reference, seq DESC);

-- Down Migration
DROP INDEX sp_supplier_payment_views_by_reference;
