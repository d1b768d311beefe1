-- Up Migration
-- Sessions of the hosted pages. The cookie holds a random token; only its SHA-256 is stored. A session
-- is bound to one object when its page is (a customer signs in for one payment).
CREATE TABLE gw_sessions (
  token_sha256 text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('customer', 'business_user', 'agent')),
  subject_id text NOT NULL,
  object_id text,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX gw_sessions_expiry ON gw_sessions (expires_at);

-- Failed sign-ins per login; after five in a row the login is locked for a while.
CREATE TABLE gw_sign_in_attempts (
  login text PRIMARY KEY,
  failures int NOT NULL,
  locked_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE gw_sign_in_attempts, gw_sessions;
