-- Up Migration
-- The time of each account's last posting, kept by every writer of entries under the account's lock:
-- an entry is dated no earlier than the last posting of the accounts it moves, so that on every
-- account time order is the order balances moved (a balance as of a time is the balance_after of the
-- last posting before it), even when ledger instances' clocks differ.
ALTER TABLE ledger_accounts ADD COLUMN last_posted_at timestamptz;
UPDATE ledger_accounts a SET last_posted_at = p.at
FROM (SELECT account_id, max(created_at) AS at FROM ledger_postings GROUP BY account_id) p
WHERE a.id = p.account_id;

-- Down Migration
ALTER TABLE ledger_accounts DROP COLUMN last_posted_at;
