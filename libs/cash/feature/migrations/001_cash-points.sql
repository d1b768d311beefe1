-- Up Migration
-- Cash points, where agents validate cash; listed on the cash payment instructions page.
CREATE TABLE cash_points (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  name text NOT NULL,
  address text NOT NULL,
  created_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE cash_points;
