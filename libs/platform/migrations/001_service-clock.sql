-- Up Migration
-- The service clock is real time plus this offset; it only grows (sandbox clock advance).
CREATE TABLE service_clock (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0)
);
INSERT INTO service_clock DEFAULT VALUES;

-- Down Migration
DROP TABLE service_clock;
