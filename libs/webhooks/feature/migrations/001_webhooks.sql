-- Up Migration
CREATE TABLE wh_endpoints (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  integrator_id text NOT NULL,
  url text NOT NULL,
  enabled_events text[] NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX wh_endpoints_by_integrator ON wh_endpoints (integrator_id, seq DESC) WHERE deleted_at IS NULL;

-- Events as delivered: the body is serialised once, so every attempt sends the same bytes.
CREATE TABLE wh_events (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  integrator_id text NOT NULL,
  type text NOT NULL,
  object_id text NOT NULL,
  created_at timestamptz NOT NULL,
  body text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wh_events_by_integrator ON wh_events (integrator_id, seq DESC);

-- One delivery of one event to one endpoint; a redelivery is another delivery of the same event.
CREATE TABLE wh_deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES wh_events (id),
  endpoint_id text NOT NULL REFERENCES wh_endpoints (id),
  origin text NOT NULL CHECK (origin IN ('event', 'redeliver')),
  status text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'canceled')),
  attempts int NOT NULL DEFAULT 0,
  -- On the service clock: retries are due when the (sandbox) clock says so.
  next_attempt_at timestamptz,
  -- Real time: a process that died while delivering loses its claim after this.
  lease_until timestamptz,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX wh_deliveries_one_per_event_and_endpoint ON wh_deliveries (event_id, endpoint_id) WHERE origin = 'event';
CREATE INDEX wh_deliveries_due ON wh_deliveries (next_attempt_at) WHERE status = 'pending';
-- The dispatcher's claim: per endpoint, its due (or lease-expired) deliveries, oldest first.
CREATE INDEX wh_deliveries_open_by_endpoint ON wh_deliveries (endpoint_id, next_attempt_at) WHERE status IN ('pending', 'delivering');
CREATE INDEX wh_deliveries_leased ON wh_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX wh_deliveries_by_event ON wh_deliveries (event_id);

CREATE TABLE wh_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES wh_deliveries (id),
  attempted_at timestamptz NOT NULL,
  status_code int,
  latency_ms int NOT NULL,
  error text
);
CREATE INDEX wh_attempts_by_delivery ON wh_attempts (delivery_id, id);

-- Down Migration
DROP TABLE wh_attempts, wh_deliveries, wh_events, wh_endpoints;
