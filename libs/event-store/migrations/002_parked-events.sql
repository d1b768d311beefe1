-- Up Migration
-- Poison events: an event a subscription's handler kept failing on, alone, is parked here with its
-- error (reported, and kept for an operator) so that the events after it are not held up forever.
CREATE TABLE es_parked_events (
  subscription_id text NOT NULL,
  event_id text NOT NULL,
  stream_id text NOT NULL,
  type text NOT NULL,
  error text NOT NULL,
  parked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, event_id)
);

-- Down Migration
DROP TABLE es_parked_events;
