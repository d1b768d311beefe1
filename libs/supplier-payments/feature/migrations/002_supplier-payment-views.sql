-- Up Migration
-- Read model of supplier payments, projected from their streams (state = the folded aggregate):
-- what the list (newest first by seq, filters invoice_reference and status) and the sweeps query.
CREATE TABLE sp_supplier_payment_views (
  supplier_payment_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  integrator_id text NOT NULL,
  invoice_reference text NOT NULL,
  status text NOT NULL,
  approving boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  state jsonb NOT NULL,
  revision bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sp_supplier_payment_views_list ON sp_supplier_payment_views (integrator_id, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_invoice ON sp_supplier_payment_views (integrator_id, invoice_reference, seq DESC);
CREATE INDEX sp_supplier_payment_views_by_status ON sp_supplier_payment_views (integrator_id, status, seq DESC);
CREATE INDEX sp_supplier_payment_views_open_by_deadline ON sp_supplier_payment_views (expires_at) WHERE status = 'awaiting_approval' AND NOT approving;
CREATE INDEX sp_supplier_payment_views_approving ON sp_supplier_payment_views (updated_at) WHERE approving;

-- Down Migration
DROP TABLE sp_supplier_payment_views;
