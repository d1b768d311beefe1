-- Up Migration
-- The gateway's directory: who may call, and for which connections; customers' identities.
-- Secrets are stored hashed.
CREATE TABLE gw_integrators (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE gw_api_keys (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES gw_integrators (id),
  secret_sha256 text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE gw_connections (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES gw_integrators (id),
  kind text NOT NULL CHECK (kind IN ('merchant', 'business', 'wholesaler')),
  name text NOT NULL,
  currency char(3) NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE gw_customers (
  id text PRIMARY KEY,
  name text NOT NULL,
  phone text NOT NULL,
  pin_scrypt text NOT NULL,
  currency char(3) NOT NULL,
  created_at timestamptz NOT NULL
);

-- Idempotency keys (contract section 3), scoped to the integrator (or 'admin'), kept at least 24 h.
CREATE TABLE gw_idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  endpoint text NOT NULL,
  request_sha256 text NOT NULL,
  object_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  locked_until timestamptz,
  response_status int,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
CREATE INDEX gw_idempotency_keys_created_at ON gw_idempotency_keys (created_at);

-- Down Migration
DROP TABLE gw_idempotency_keys, gw_customers, gw_connections, gw_api_keys, gw_integrators;
