-- Up Migration
-- The attempt that holds a running key: a gateway takes over a key whose holder is one of its own
-- attempts that has answered, at once, instead of waiting for the lock's end (a retry after a 503).
ALTER TABLE gw_idempotency_keys ADD COLUMN holder text;

-- Down Migration
ALTER TABLE gw_idempotency_keys DROP COLUMN holder;
