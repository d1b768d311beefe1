-- Up Migration
-- SQL access for BI tools: documented views in their own schema, read through the NOLOGIN group role
-- finance_reader. The views run with their owner's rights (not security_invoker), so the role reads
-- the ledger through them and through nothing else. A login role joins it with
--   CREATE ROLE bi LOGIN PASSWORD '…' IN ROLE finance_reader;
CREATE SCHEMA finance;
COMMENT ON SCHEMA finance IS 'Read-only views of the double-entry ledger for finance and BI tools (role finance_reader). Amounts are integers in minor units of the currency.';

CREATE VIEW finance.accounts AS
SELECT id, kind, currency, balance, allow_negative, created_at
FROM public.ledger_accounts;
COMMENT ON VIEW finance.accounts IS 'Every ledger account with its current balance, as GET /admin/v1/ledger/accounts lists them.';
COMMENT ON COLUMN finance.accounts.id IS 'Account id: the owner id (cus_…, conn_…, ben_…), cp_…:<CUR> for a cash point, platform:<fees|funding|cash|cash_in_transit>:<CUR> for the platform.';
COMMENT ON COLUMN finance.accounts.kind IS 'customer, connection, beneficiary, cash_point, platform_fees, platform_funding, platform_cash or platform_cash_in_transit.';
COMMENT ON COLUMN finance.accounts.currency IS 'ISO 4217 code: DZD, MAD, TND or XOF. Every posting of the account is in it.';
COMMENT ON COLUMN finance.accounts.balance IS 'Current balance in minor units: credits minus debits (a credit raises a balance, a debit lowers it, on every account).';
COMMENT ON COLUMN finance.accounts.allow_negative IS 'True only for platform funding, cash and cash_in_transit (counter-accounts of money outside the ledger): the only balances that may be below zero.';
COMMENT ON COLUMN finance.accounts.created_at IS 'When the account was opened (service clock).';

CREATE VIEW finance.entries AS
SELECT id, position, reference, kind, created_at
FROM public.ledger_entries;
COMMENT ON VIEW finance.entries IS 'Journal entries: one balanced movement each (its postings are in finance.postings). Immutable.';
COMMENT ON COLUMN finance.entries.id IS 'Entry id (je_…), the entry of statement lines and of GET /admin/v1/ledger/entries.';
COMMENT ON COLUMN finance.entries.position IS 'Order in which entries were written: breaks ties between equal created_at.';
COMMENT ON COLUMN finance.entries.reference IS 'The object that caused the movement: pay_…, cpay_…, spay_…, col_…, re_… or the top-up id.';
COMMENT ON COLUMN finance.entries.kind IS 'payment, cash_payment, supplier_payment, settlement, refund, topup, cash_handover, cash_deposit or cash_write_off.';
COMMENT ON COLUMN finance.entries.created_at IS 'When the movement happened (service clock). Statements, balances as of a time and fee revenue select on it.';

-- The running balance is computed in statement order, from the account's first posting, so that it is
-- the balance_after of statement lines. Filtering on account_id is pushed below the window (it is the
-- partition); any other filter applies after it, over the account's whole history.
CREATE VIEW finance.postings AS
SELECT r.entry_id, r.seq, r.balance_transaction_id, r.account_id, r.currency, r.direction, r.amount, r.signed_amount,
  r.running_balance, r.balance_after, e.reference, e.kind, r.created_at, r.entry_position
FROM (
  SELECT p.entry_id, p.seq, p.txn_id AS balance_transaction_id, p.account_id, p.currency, p.direction, p.amount,
    CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END AS signed_amount,
    (sum(CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END)
       OVER (PARTITION BY p.account_id ORDER BY p.created_at, p.entry_position, p.seq ROWS UNBOUNDED PRECEDING))::bigint AS running_balance,
    p.balance_after, p.created_at, p.entry_position
  FROM public.ledger_postings p
) r
JOIN public.ledger_entries e ON e.id = r.entry_id;
COMMENT ON VIEW finance.postings IS 'Every posting (one side of an entry on one account) with the running balance of its account. Filter on account_id: the running balance is computed over the account''s whole history.';
COMMENT ON COLUMN finance.postings.entry_id IS 'The entry (finance.entries.id); the postings of one entry balance: debits = credits.';
COMMENT ON COLUMN finance.postings.seq IS 'Place of the posting in its entry (1, 2, …).';
COMMENT ON COLUMN finance.postings.balance_transaction_id IS 'The balance transaction id (txn_…) integrators see for this movement.';
COMMENT ON COLUMN finance.postings.account_id IS 'The account moved (finance.accounts.id).';
COMMENT ON COLUMN finance.postings.currency IS 'The currency of the posting, its entry and its account.';
COMMENT ON COLUMN finance.postings.direction IS 'debit or credit.';
COMMENT ON COLUMN finance.postings.amount IS 'Positive amount in minor units.';
COMMENT ON COLUMN finance.postings.signed_amount IS 'amount for a credit, -amount for a debit: what the posting did to the account''s balance.';
COMMENT ON COLUMN finance.postings.running_balance IS 'The account''s balance through this posting in statement order (created_at, entry_position, seq), credits minus debits on every account: the balance_after of the statement line.';
COMMENT ON COLUMN finance.postings.balance_after IS 'The account''s balance right after this posting as it was applied (entry_position order), as balance transactions show it. Equals running_balance unless two transfers committed in another order than their created_at.';
COMMENT ON COLUMN finance.postings.reference IS 'The entry''s reference (the object that caused it).';
COMMENT ON COLUMN finance.postings.kind IS 'The entry''s kind (its use case).';
COMMENT ON COLUMN finance.postings.created_at IS 'The entry''s time (service clock).';
COMMENT ON COLUMN finance.postings.entry_position IS 'The entry''s position (finance.entries.position).';

-- The same figure as GET /admin/v1/ledger/fee_revenue: credits of the platform fee accounts, by the
-- kind of the entry that charged them (the route's total is the sum over every kind).
CREATE VIEW finance.fee_revenue_daily AS
SELECT (p.created_at AT TIME ZONE 'UTC')::date AS day, p.currency, e.kind AS use_case, sum(p.amount)::bigint AS amount, count(*)::bigint AS postings
FROM public.ledger_postings p
JOIN public.ledger_entries e ON e.id = p.entry_id
WHERE p.account_id IN (SELECT id FROM public.ledger_accounts WHERE kind = 'platform_fees') AND p.direction = 'credit'
GROUP BY 1, 2, 3;
COMMENT ON VIEW finance.fee_revenue_daily IS 'Fees earned per UTC day, currency and use case: the credits of platform:fees:<CUR>, as GET /admin/v1/ledger/fee_revenue sums them over a period.';
COMMENT ON COLUMN finance.fee_revenue_daily.day IS 'The UTC calendar day of the entries (created_at at time zone UTC).';
COMMENT ON COLUMN finance.fee_revenue_daily.currency IS 'The fee account''s currency.';
COMMENT ON COLUMN finance.fee_revenue_daily.use_case IS 'The kind of the entry that charged the fee: payment, cash_payment, supplier_payment or settlement.';
COMMENT ON COLUMN finance.fee_revenue_daily.amount IS 'Fees credited that day, in minor units.';
COMMENT ON COLUMN finance.fee_revenue_daily.postings IS 'How many fee credits make up the amount.';

-- Roles belong to the cluster, not the database: several databases (and migrations running at the same
-- time in them) share it, hence IF NOT EXISTS and the duplicate caught when another one won the race. A
-- migrating role without CREATEROLE (a managed database) leaves the role to the operator, with a warning.
DO $$
BEGIN
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finance_reader') THEN
      CREATE ROLE finance_reader NOLOGIN;
      COMMENT ON ROLE finance_reader IS 'Read-only SQL access to the ledger through the views of schema finance; login roles join it.';
    END IF;
  EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN
      RAISE WARNING 'role finance_reader not created (the migrating role lacks CREATEROLE): create it with CREATE ROLE finance_reader NOLOGIN, then grant it USAGE on schema finance and SELECT on its views';
  END;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finance_reader') THEN
    GRANT USAGE ON SCHEMA finance TO finance_reader;
    GRANT SELECT ON finance.accounts, finance.entries, finance.postings, finance.fee_revenue_daily TO finance_reader;
  END IF;
END
$$;

-- PostgreSQL lets every role (PUBLIC) use schema public: taken back, so that finance_reader reaches no
-- table, sequence or function there, and kept for the role that owns and migrates the schema.
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO CURRENT_USER;

-- Down Migration
DROP VIEW finance.fee_revenue_daily, finance.postings, finance.entries, finance.accounts;
DROP SCHEMA finance;
-- Back to PostgreSQL's default (15 and later). The role stays: other databases of the cluster may use it.
GRANT USAGE ON SCHEMA public TO PUBLIC;
