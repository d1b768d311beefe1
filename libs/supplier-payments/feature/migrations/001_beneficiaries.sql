-- Up Migration
-- Beneficiaries: suppliers a business has authorized (managed in the business's own application; the
-- admin API stands in for it). Each has an account in the ledger, keyed by its id.
CREATE TABLE sp_beneficiaries (
  id text PRIMARY KEY,
  business_connection text NOT NULL,
  integrator_id text NOT NULL,
  account_name text NOT NULL,
  currency char(3) NOT NULL,
  status text NOT NULL CHECK (status IN ('authorized', 'revoked')),
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sp_beneficiaries_by_business ON sp_beneficiaries (business_connection);

-- Down Migration
DROP TABLE sp_beneficiaries;
