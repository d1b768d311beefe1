-- Up Migration
-- Payouts to bank accounts: per currency, the payouts sent to the bank and not yet booked
-- (payouts_in_transit, credited at a payout's creation, debited when it is paid, canceled or returned)
-- and what the bank booked (paid_out, money that left the ledger). Neither goes below zero.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN (
  'customer', 'connection', 'beneficiary', 'cash_point', 'platform_fees', 'platform_funding', 'platform_cash', 'platform_cash_in_transit',
  'platform_payouts_in_transit', 'platform_paid_out'));
INSERT INTO ledger_accounts (id, kind, currency, allow_negative, created_at)
SELECT 'platform:' || k.kind || ':' || c.currency, 'platform_' || k.kind, c.currency, false, now()
FROM (VALUES ('payouts_in_transit'), ('paid_out')) AS k (kind)
CROSS JOIN (VALUES ('DZD'), ('MAD'), ('TND'), ('XOF')) AS c (currency)
ON CONFLICT (id) DO NOTHING;
COMMENT ON COLUMN finance.accounts.kind IS 'customer, connection, beneficiary, cash_point, platform_fees, platform_funding, platform_cash, platform_cash_in_transit, platform_payouts_in_transit or platform_paid_out.';
COMMENT ON COLUMN finance.entries.kind IS 'payment, cash_payment, supplier_payment, settlement, refund, topup, cash_handover, cash_deposit, cash_write_off, payout, payout_reversal or payout_paid.';

-- Down Migration
DELETE FROM ledger_accounts WHERE kind IN ('platform_payouts_in_transit', 'platform_paid_out');
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN (
  'customer', 'connection', 'beneficiary', 'cash_point', 'platform_fees', 'platform_funding', 'platform_cash', 'platform_cash_in_transit'));
