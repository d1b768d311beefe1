-- Up Migration
-- Escalating sign-in locks: `failures` counts wrong secrets since the last success (a lock's end no
-- longer resets it) and `locks` the locks set since then, each longer than the one before; the last
-- lasts until the secret is reset through the admin API (locked_until = 'infinity').
ALTER TABLE gw_sign_in_attempts ADD COLUMN locks int NOT NULL DEFAULT 0;

-- Failed sign-ins per client address (`address:<ip>`) and over the whole service (`all`), in fixed
-- windows: an attempt is counted before its secret is checked and given back when it succeeds.
CREATE TABLE gw_sign_in_rates (
  scope text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  failures int NOT NULL
);

-- Down Migration
DROP TABLE gw_sign_in_rates;
ALTER TABLE gw_sign_in_attempts DROP COLUMN locks;
