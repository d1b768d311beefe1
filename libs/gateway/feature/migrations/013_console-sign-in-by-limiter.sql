-- Up Migration
-- The console's failed sign-ins are counted by the hosted pages' limiter (gw_sign_in_attempts, logins
-- `console:<address>`); its own table is no longer read or written.
DROP TABLE gw_console_sign_in_attempts;

-- Down Migration
CREATE TABLE gw_console_sign_in_attempts (
  client text PRIMARY KEY,
  failures int NOT NULL,
  locked_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
