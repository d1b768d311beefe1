-- Up Migration
-- A replay answers the first response's body as it was sent: json keeps its text (the fields in their
-- order), where jsonb reorders an object's keys.
ALTER TABLE gw_idempotency_keys ALTER COLUMN response_body TYPE json USING response_body::json;

-- Down Migration
ALTER TABLE gw_idempotency_keys ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb;
