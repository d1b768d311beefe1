-- Up Migration
-- Statements, balances as of a time and entries by account walk an account's postings in time order.
DROP INDEX ledger_postings_account_by_time;
CREATE INDEX ledger_postings_account_by_time ON ledger_postings (account_id, created_at, entry_position, seq) INCLUDE (direction, amount);
-- Fee revenue over a period reads the fee accounts' credits by time from the same index.
CREATE INDEX ledger_accounts_by_creation ON ledger_accounts (created_at DESC, id DESC);

-- Down Migration
DROP INDEX ledger_accounts_by_creation;
DROP INDEX ledger_postings_account_by_time;
CREATE INDEX ledger_postings_account_by_time ON ledger_postings (account_id, created_at);
