-- Up Migration
-- The list is newest first by created_at (the request's time), then seq among equal times: seq alone is
-- the order the projection inserted the rows, which concurrent requests do not keep. One index per filter.
CREATE INDEX cash_payment_views_list_by_time ON cash_payment_views (integrator_id, created_at DESC, seq DESC);
CREATE INDEX cash_payment_views_by_status_by_time ON cash_payment_views (integrator_id, status, created_at DESC, seq DESC);
CREATE INDEX cash_payment_views_by_order_reference_by_time ON cash_payment_views (integrator_id, order_reference, created_at DESC, seq DESC);
CREATE INDEX cash_payment_views_by_payment_reference_by_time ON cash_payment_views (integrator_id, payment_reference, created_at DESC, seq DESC);
DROP INDEX cash_payment_views_list, cash_payment_views_by_status, cash_payment_views_by_order_reference, cash_payment_views_by_payment_reference, cash_payment_views_by_created_at;

-- Down Migration
CREATE INDEX cash_payment_views_list ON cash_payment_views (integrator_id, seq DESC);
CREATE INDEX cash_payment_views_by_status ON cash_payment_views (integrator_id, status, seq DESC);
CREATE INDEX cash_payment_views_by_order_reference ON cash_payment_views (integrator_id, order_reference, seq DESC);
CREATE INDEX cash_payment_views_by_payment_reference ON cash_payment_views (integrator_id, payment_reference, seq DESC);
CREATE INDEX cash_payment_views_by_created_at ON cash_payment_views (integrator_id, created_at DESC);
DROP INDEX cash_payment_views_list_by_time, cash_payment_views_by_status_by_time, cash_payment_views_by_order_reference_by_time, cash_payment_views_by_payment_reference_by_time;
