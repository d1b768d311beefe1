-- Up Migration
-- The list is newest first by created_at (the request's time), then seq among equal times: seq alone is
-- the order the projection inserted the rows, which concurrent requests do not keep. The column is filled
-- from each row's folded state, then one index per filter in that order.
ALTER TABLE sp_supplier_payment_views ADD COLUMN created_at timestamptz;
UPDATE sp_supplier_payment_views SET created_at = (state->'terms'->>'createdAt')::timestamptz;
ALTER TABLE sp_supplier_payment_views ALTER COLUMN created_at SET NOT NULL;
CREATE INDEX sp_supplier_payment_views_list_by_time ON sp_supplier_payment_views (integrator_id, created_at DESC, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_invoice_by_time ON sp_supplier_payment_views (integrator_id, invoice_reference, created_at DESC, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_status_by_time ON sp_supplier_payment_views (integrator_id, status, created_at DESC, seq DESC);
DROP INDEX sp_supplier_payment_views_list, sp_supplier_payment_views_by_invoice, sp_supplier_payment_views_by_status;

-- Down Migration
CREATE INDEX sp_supplier_payment_views_list ON sp_supplier_payment_views (integrator_id, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_invoice ON sp_supplier_payment_views (integrator_id, invoice_reference, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_status ON sp_supplier_payment_views (integrator_id, status, seq DESC);
DROP INDEX sp_supplier_payment_views_list_by_time, sp_supplier_payment_views_by_invoice_by_time, sp_supplier_payment_views_by_status_by_time;
ALTER TABLE sp_supplier_payment_views DROP COLUMN created_at;
