-- Up Migration
-- Bank accounts registered for payouts: immutable once created. The full IBAN is kept for the bank's
-- files; the API answers it only at creation.
CREATE TABLE bank_accounts (
  bank_account_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  integrator_id text NOT NULL,
  connection text NOT NULL,
  account_holder text NOT NULL,
  iban text NOT NULL,
  country char(2) NOT NULL,
  currency char(3) NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX bank_accounts_list ON bank_accounts (integrator_id, seq DESC);
CREATE INDEX bank_accounts_by_connection ON bank_accounts (integrator_id, connection, seq DESC);

-- Read model of payouts, projected from their streams: the list (newest first, filters), the pending
-- payouts a batch takes, and the ledger steps left half done (step_pending) that the sweeper finishes.
-- `listed` is false while the payout's debit has not answered, and for ever once it was refused.
CREATE TABLE payout_views (
  payout_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  integrator_id text NOT NULL,
  connection text NOT NULL,
  currency char(3) NOT NULL,
  status text NOT NULL,
  listed boolean NOT NULL,
  step_pending boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  state jsonb NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX payout_views_list ON payout_views (integrator_id, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_connection ON payout_views (integrator_id, connection, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_status ON payout_views (integrator_id, status, seq DESC) WHERE listed;
CREATE INDEX payout_views_pending ON payout_views (currency, seq) WHERE status = 'pending';
CREATE INDEX payout_views_step_pending ON payout_views (updated_at) WHERE step_pending;

-- Batches of payouts sent to the bank: an open batch (its payouts not all moved yet) is what the
-- sweeper closes after a crash.
CREATE TABLE payout_batch_views (
  batch_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  status text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  state jsonb NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX payout_batch_views_open ON payout_batch_views (updated_at) WHERE status = 'open';

-- Bank statements imported (by the statement's own Stmt/Id: a repeat applies nothing), and each entry
-- applied (by the entry's reference: an entry repeated in a later statement applies nothing either).
CREATE TABLE bank_statement_imports (
  statement_id text PRIMARY KEY,
  import_id text NOT NULL UNIQUE,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE bank_statement_entries (
  entry_ref text PRIMARY KEY,
  statement_id text NOT NULL,
  payout_id text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('paid', 'failed')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE bank_statement_entries;
DROP TABLE bank_statement_imports;
DROP TABLE payout_batch_views;
DROP TABLE payout_views;
DROP TABLE bank_accounts;
