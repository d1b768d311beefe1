-- Up Migration
-- Each posting is a balance transaction of its account: a stable id, the account's balance right after
-- it (written in the transfer's own transaction, from the locked balance), and the entry's place and
-- time copied beside it, so that an account's history reads from one index, newest first.
ALTER TABLE ledger_postings
  ADD COLUMN txn_id text,
  ADD COLUMN balance_after bigint,
  ADD COLUMN entry_position bigint,
  ADD COLUMN created_at timestamptz;
UPDATE ledger_postings p SET txn_id = 'txn_' || substr(md5(p.entry_id || ':' || p.seq), 1, 24), entry_position = e.position, created_at = e.created_at
FROM ledger_entries e WHERE e.id = p.entry_id;
UPDATE ledger_postings p SET balance_after = r.balance_after
FROM (
  SELECT entry_id, seq, sum(CASE WHEN direction = 'credit' THEN amount ELSE -amount END) OVER (PARTITION BY account_id ORDER BY entry_position, seq) AS balance_after
  FROM ledger_postings
) r
WHERE r.entry_id = p.entry_id AND r.seq = p.seq;
ALTER TABLE ledger_postings
  ALTER COLUMN txn_id SET NOT NULL,
  ALTER COLUMN balance_after SET NOT NULL,
  ALTER COLUMN entry_position SET NOT NULL,
  ALTER COLUMN created_at SET NOT NULL;
CREATE UNIQUE INDEX ledger_postings_txn_id ON ledger_postings (txn_id);
CREATE INDEX ledger_postings_account_history ON ledger_postings (account_id, entry_position DESC, seq DESC);
CREATE INDEX ledger_postings_account_by_time ON ledger_postings (account_id, created_at);
DROP INDEX ledger_postings_by_account;

-- Down Migration
CREATE INDEX ledger_postings_by_account ON ledger_postings (account_id);
DROP INDEX ledger_postings_account_by_time, ledger_postings_account_history, ledger_postings_txn_id;
ALTER TABLE ledger_postings DROP COLUMN created_at, DROP COLUMN entry_position, DROP COLUMN balance_after, DROP COLUMN txn_id;
