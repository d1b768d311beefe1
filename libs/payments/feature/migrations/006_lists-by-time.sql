-- Up Migration
-- Lists are newest first by created_at (the request's time), then seq among equal times: seq alone is the
-- order the projection inserted the rows, which concurrent requests do not keep. One index per filter in
-- that order; the indexes in seq order served the lists only.
CREATE INDEX payment_views_list_by_time ON payment_views (integrator_id, created_at DESC, seq DESC);
CREATE INDEX payment_views_by_status_by_time ON payment_views (integrator_id, status, created_at DESC, seq DESC);
CREATE INDEX payment_views_by_order_reference_by_time ON payment_views (integrator_id, order_reference, created_at DESC, seq DESC);
CREATE INDEX payment_views_by_merchant_by_time ON payment_views (integrator_id, merchant_connection, created_at DESC, seq DESC);
DROP INDEX payment_views_list, payment_views_by_status, payment_views_by_order_reference, payment_views_by_merchant, payment_views_by_created_at;

CREATE INDEX refund_views_list_by_time ON refund_views (integrator_id, created_at DESC, seq DESC);
CREATE INDEX refund_views_by_payment_by_time ON refund_views (integrator_id, payment, created_at DESC, seq DESC);
DROP INDEX refund_views_list, refund_views_by_payment;

CREATE INDEX payout_views_list_by_time ON payout_views (integrator_id, created_at DESC, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_connection_by_time ON payout_views (integrator_id, connection, created_at DESC, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_status_by_time ON payout_views (integrator_id, status, created_at DESC, seq DESC) WHERE listed;
DROP INDEX payout_views_list, payout_views_by_connection, payout_views_by_status;

CREATE INDEX bank_accounts_list_by_time ON bank_accounts (integrator_id, created_at DESC, seq DESC);
CREATE INDEX bank_accounts_by_connection_by_time ON bank_accounts (integrator_id, connection, created_at DESC, seq DESC);
DROP INDEX bank_accounts_list, bank_accounts_by_connection;

-- Down Migration
CREATE INDEX bank_accounts_list ON bank_accounts (integrator_id, seq DESC);
CREATE INDEX bank_accounts_by_connection ON bank_accounts (integrator_id, connection, seq DESC);
DROP INDEX bank_accounts_list_by_time, bank_accounts_by_connection_by_time;
CREATE INDEX payout_views_list ON payout_views (integrator_id, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_connection ON payout_views (integrator_id, connection, seq DESC) WHERE listed;
CREATE INDEX payout_views_by_status ON payout_views (integrator_id, status, seq DESC) WHERE listed;
DROP INDEX payout_views_list_by_time, payout_views_by_connection_by_time, payout_views_by_status_by_time;
CREATE INDEX refund_views_list ON refund_views (integrator_id, seq DESC);
CREATE INDEX refund_views_by_payment ON refund_views (integrator_id, payment, seq DESC);
DROP INDEX refund_views_list_by_time, refund_views_by_payment_by_time;
CREATE INDEX payment_views_list ON payment_views (integrator_id, seq DESC);
CREATE INDEX payment_views_by_status ON payment_views (integrator_id, status, seq DESC);
CREATE INDEX payment_views_by_order_reference ON payment_views (integrator_id, order_reference, seq DESC);
CREATE INDEX payment_views_by_merchant ON payment_views (integrator_id, merchant_connection, seq DESC);
CREATE INDEX payment_views_by_created_at ON payment_views (integrator_id, created_at DESC);
DROP INDEX payment_views_list_by_time, payment_views_by_status_by_time, payment_views_by_order_reference_by_time, payment_views_by_merchant_by_time;
