-- Up Migration
-- The agents' lists: pickups waiting (oldest first), and the cash each carrier holds and each cash point
-- expects (most urgent first), read from the folded state the projection keeps.
CREATE INDEX collection_views_awaiting_pickup ON collection_views (seq) WHERE status = 'awaiting_collection';
CREATE INDEX collection_views_by_carrier ON collection_views ((state->'deposit'->>'carrier'), due_at) WHERE status = 'collected_awaiting_deposit';
CREATE INDEX collection_views_by_deposit_point ON collection_views ((state->'deposit'->>'cashPoint'), due_at) WHERE status = 'collected_awaiting_deposit';

-- Down Migration
DROP INDEX collection_views_by_deposit_point, collection_views_by_carrier, collection_views_awaiting_pickup;
