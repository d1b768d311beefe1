-- Up Migration
-- Fee revenue per UTC day, currency and kind of entry: the credits of the platform fee accounts
-- (platform:fees:<CUR>), summed. The statement that writes an entry (ledger.write-entry) adds its fee
-- credits to their day's row, in the transfer's own transaction and only when the entry is written (a
-- replayed operation writes nothing), so fee revenue over a period reads a row per day and currency
-- instead of every fee posting. Only a transaction that holds the fee account's row lock writes its rows.
CREATE TABLE ledger_fee_revenue_daily (
  -- The UTC calendar day of the entries (created_at at time zone UTC).
  day date NOT NULL,
  currency text NOT NULL,
  -- The kind of the entries (their use case).
  kind text NOT NULL,
  amount bigint NOT NULL,
  postings bigint NOT NULL,
  PRIMARY KEY (day, currency, kind)
);

-- Backfill from the postings already written. SHARE mode lets reads go on and holds writers of postings
-- until this migration commits, so none is written meanwhile without being counted.
LOCK TABLE ledger_postings IN SHARE MODE;
INSERT INTO ledger_fee_revenue_daily (day, currency, kind, amount, postings)
SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency, e.kind, sum(p.amount), count(*)
FROM ledger_postings p
JOIN ledger_entries e ON e.id = p.entry_id
WHERE p.account_id IN (SELECT id FROM ledger_accounts WHERE kind = 'platform_fees') AND p.direction = 'credit'
GROUP BY 1, 2, 3;

-- BI reads the same figures, from the summary (same columns as before: a char(3) currency).
CREATE OR REPLACE VIEW finance.fee_revenue_daily AS
SELECT day, currency::char(3) AS currency, kind AS use_case, amount, postings
FROM public.ledger_fee_revenue_daily;
COMMENT ON VIEW finance.fee_revenue_daily IS 'Fees earned per UTC day, currency and use case: the credits of platform:fees:<CUR>, as GET /admin/v1/ledger/fee_revenue sums them over a period. Kept up to date by every transfer that charges a fee, in its own transaction.';

-- Down Migration
CREATE OR REPLACE VIEW finance.fee_revenue_daily AS
SELECT (p.created_at AT TIME ZONE 'UTC')::date AS day, p.currency, e.kind AS use_case, sum(p.amount)::bigint AS amount, count(*)::bigint AS postings
FROM public.ledger_postings p
JOIN public.ledger_entries e ON e.id = p.entry_id
WHERE p.account_id IN (SELECT id FROM public.ledger_accounts WHERE kind = 'platform_fees') AND p.direction = 'credit'
GROUP BY 1, 2, 3;
COMMENT ON VIEW finance.fee_revenue_daily IS 'Fees earned per UTC day, currency and use case: the credits of platform:fees:<CUR>, as GET /admin/v1/ledger/fee_revenue sums them over a period.';
DROP TABLE ledger_fee_revenue_daily;
