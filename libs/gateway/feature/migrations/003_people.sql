-- Up Migration
-- The people of the hosted pages: authorized users of a business (they approve its supplier payments)
-- and cash agents of a cash point (cashiers validate cash and deposits; carriers confirm handovers).
-- Passwords are stored scrypt-hashed (salt:hash), like customers' PINs.
CREATE TABLE gw_business_users (
  id text PRIMARY KEY,
  business text NOT NULL REFERENCES gw_connections (id),
  name text NOT NULL,
  login text NOT NULL UNIQUE,
  password_scrypt text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE gw_agents (
  id text PRIMARY KEY,
  cash_point text NOT NULL,
  role text NOT NULL CHECK (role IN ('cashier', 'carrier')),
  name text NOT NULL,
  login text NOT NULL UNIQUE,
  password_scrypt text NOT NULL,
  created_at timestamptz NOT NULL
);

-- The gateway's own secrets, generated once (the handover codes' HMAC key when HOSTED_PAGES_SECRET is not set).
CREATE TABLE gw_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE gw_secrets, gw_agents, gw_business_users;
