-- Up Migration
-- The operator's failed deliveries (given up, or retrying after a failed attempt), newest first, of
-- every endpoint or of one; and bulk redelivery's search for the failed ones. Partial: a handful of
-- rows among the millions delivered.
CREATE INDEX wh_deliveries_failing ON wh_deliveries (created_at DESC, id DESC)
  WHERE attempts > 0 AND status IN ('pending', 'delivering', 'failed');
CREATE INDEX wh_deliveries_failing_by_endpoint ON wh_deliveries (endpoint_id, created_at DESC, id DESC)
  WHERE attempts > 0 AND status IN ('pending', 'delivering', 'failed');
-- Endpoints currently failing, oldest failure first.
CREATE INDEX wh_endpoints_failing ON wh_endpoints (failing_since, id)
  WHERE failing_since IS NOT NULL AND status = 'enabled' AND deleted_at IS NULL;

-- Down Migration
DROP INDEX wh_endpoints_failing, wh_deliveries_failing_by_endpoint, wh_deliveries_failing;
