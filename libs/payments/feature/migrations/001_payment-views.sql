-- Up Migration
-- Read model of payments, projected from their streams: what the deadline and recovery sweeps query.
CREATE TABLE payment_views (
  payment_id text PRIMARY KEY,
  integrator_id text NOT NULL,
  status text NOT NULL,
  authorizing boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  revision bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payment_views_open_by_deadline ON payment_views (expires_at) WHERE status = 'pending' AND NOT authorizing;
CREATE INDEX payment_views_authorizing ON payment_views (updated_at) WHERE authorizing;

-- Down Migration
DROP TABLE payment_views;
