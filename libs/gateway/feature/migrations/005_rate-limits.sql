-- Up Migration
-- Per-key token buckets shared by every gateway (auth/rate-limiter.ts: PostgresBuckets): one row per API
-- key, refilled and debited in one statement; tokens go below zero (at most a burst) when the gateways
-- together admitted more than the bucket held.
CREATE TABLE gw_rate_limits (
  key_id text PRIMARY KEY,
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE gw_rate_limits;
