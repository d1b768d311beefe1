-- Up Migration
-- The key a roll issued in this key's place: a key is rolled once, so a key in its overlap (still active
-- until its expires_at) refuses another roll. Null for a key never rolled.
ALTER TABLE gw_api_keys ADD COLUMN rolled_to text;

-- Down Migration
ALTER TABLE gw_api_keys DROP COLUMN rolled_to;
