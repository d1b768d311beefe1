-- Up Migration
-- Read model of cash payments, projected from their streams: what the deadline and recovery sweeps query.
CREATE TABLE cash_payment_views (
  cash_payment_id text PRIMARY KEY,
  integrator_id text NOT NULL,
  status text NOT NULL,
  validating boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  revision bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX cash_payment_views_open_by_deadline ON cash_payment_views (expires_at) WHERE status = 'awaiting_payment' AND NOT validating;
CREATE INDEX cash_payment_views_validating ON cash_payment_views (updated_at) WHERE validating;

-- Payment references: reserved before a cash payment is created, unique among open cash payments,
-- released (open = false) by the projection once the payment is final.
CREATE TABLE cash_payment_references (
  cash_payment_id text PRIMARY KEY,
  reference text NOT NULL CHECK (reference ~ '^[0-9]{10}$'),
  open boolean NOT NULL DEFAULT true,
  reserved_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX cash_payment_references_open_reference ON cash_payment_references (reference) WHERE open;

-- Receipt numbers handed out when an agent validates cash: unique, never reused (gaps are allowed).
CREATE SEQUENCE cash_receipt_numbers;

-- Down Migration
DROP SEQUENCE cash_receipt_numbers;
DROP TABLE cash_payment_references;
DROP TABLE cash_payment_views;
