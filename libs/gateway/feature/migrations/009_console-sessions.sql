-- Up Migration
-- Sessions of the back office console (/console). The cookie holds a random id; only its SHA-256 is
-- stored. A session has the role of the key it was opened with, a CSRF token for its forms, and two
-- ends: `expires_at` (absolute, from sign-in) and an idle limit counted from `last_seen_at`.
CREATE TABLE gw_console_sessions (
  id_sha256 text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('admin', 'finance')),
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX gw_console_sessions_expiry ON gw_console_sessions (expires_at);

-- Failed console sign-ins per client address; past the limit the address is locked for a while.
CREATE TABLE gw_console_sign_in_attempts (
  client text PRIMARY KEY,
  failures int NOT NULL,
  locked_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- An object's page lists the audit events about it.
CREATE INDEX gw_audit_events_target ON gw_audit_events (target_id, seq DESC);

-- Down Migration
DROP INDEX gw_audit_events_target;
DROP TABLE gw_console_sign_in_attempts, gw_console_sessions;
