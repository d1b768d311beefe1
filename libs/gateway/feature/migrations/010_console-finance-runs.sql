-- Up Migration
-- The console's finance checks run by an admin (a reconciliation, the ledger chain's verification):
-- each result kept, so that finance reads the latest without being allowed to run one.
CREATE TABLE gw_console_finance_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('reconciliation', 'chain_verification')),
  result jsonb NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gw_console_finance_runs_latest ON gw_console_finance_runs (kind, id DESC);

-- Down Migration
DROP TABLE gw_console_finance_runs;
