-- Up Migration
-- A payment with refunds reserved and not settled: what the sweeper finishes after a crash.
ALTER TABLE payment_views ADD COLUMN refunding boolean NOT NULL DEFAULT false;
CREATE INDEX payment_views_refunding ON payment_views (updated_at) WHERE refunding;

-- Read model of refunds, projected from their streams: the list (newest first, filter payment).
CREATE TABLE refund_views (
  refund_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  integrator_id text NOT NULL,
  payment text NOT NULL,
  created_at timestamptz NOT NULL,
  state jsonb NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX refund_views_list ON refund_views (integrator_id, seq DESC);
CREATE INDEX refund_views_by_payment ON refund_views (integrator_id, payment, seq DESC);

-- Down Migration
DROP TABLE refund_views;
DROP INDEX payment_views_refunding;
ALTER TABLE payment_views DROP COLUMN refunding;
