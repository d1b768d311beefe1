-- Up Migration
-- Double-entry ledger. Entries and postings are immutable; balances are a running total per account
-- kept in the same transaction as the postings that move them.
CREATE TABLE ledger_accounts (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('customer', 'connection', 'beneficiary', 'cash_point', 'platform_fees', 'platform_funding', 'platform_cash', 'platform_cash_in_transit')),
  currency char(3) NOT NULL,
  balance bigint NOT NULL DEFAULT 0,
  allow_negative boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  -- The last line of defence: no customer or business account goes below zero, whatever the code does.
  CONSTRAINT ledger_accounts_balance_not_negative CHECK (allow_negative OR balance >= 0)
);

-- One row per idempotent operation (transfer or top-up): the first outcome, completed or rejected,
-- answers every repeat. outcome is null only inside the transaction that claimed the id.
CREATE TABLE ledger_operations (
  operation_id text PRIMARY KEY,
  request_hash text NOT NULL,
  outcome jsonb,
  created_at timestamptz NOT NULL
);

CREATE TABLE ledger_entries (
  id text PRIMARY KEY,
  -- Insertion order, to list entries oldest first when created_at ties.
  position bigint GENERATED ALWAYS AS IDENTITY,
  operation_id text NOT NULL UNIQUE REFERENCES ledger_operations (operation_id),
  reference text NOT NULL,
  kind text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX ledger_entries_by_reference ON ledger_entries (reference, created_at, position);

CREATE TABLE ledger_postings (
  entry_id text NOT NULL REFERENCES ledger_entries (id),
  seq smallint NOT NULL,
  account_id text NOT NULL REFERENCES ledger_accounts (id),
  direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount bigint NOT NULL CHECK (amount > 0),
  currency char(3) NOT NULL,
  PRIMARY KEY (entry_id, seq)
);
-- The trial balance sums amounts per currency and direction from this index alone.
CREATE INDEX ledger_postings_trial_balance ON ledger_postings (currency, direction) INCLUDE (amount);
CREATE INDEX ledger_postings_by_account ON ledger_postings (account_id);

-- The platform's accounts exist for every currency: fees (income), funding (the source of top-ups),
-- cash (the counter-account of physical cash entering the system: cash checkout credits, collections'
-- handovers) and cash_in_transit (collected cash on its way from the carrier to a cash point). Funding
-- and cash are counter-accounts of money outside the ledger, and an over-deposit takes cash in transit
-- below zero until it is resolved: these three alone may go below zero. A cash point's account
-- (`cp_…:<CUR>`, kind cash_point, opened on first use) never does.
INSERT INTO ledger_accounts (id, kind, currency, allow_negative, created_at)
SELECT 'platform:' || k.kind || ':' || c.currency, 'platform_' || k.kind, c.currency, k.kind IN ('funding', 'cash', 'cash_in_transit'), now()
FROM (VALUES ('fees'), ('funding'), ('cash'), ('cash_in_transit')) AS k (kind)
CROSS JOIN (VALUES ('DZD'), ('MAD'), ('TND'), ('XOF')) AS c (currency);

-- Down Migration
DROP TABLE ledger_postings;
DROP TABLE ledger_entries;
DROP TABLE ledger_operations;
DROP TABLE ledger_accounts;
