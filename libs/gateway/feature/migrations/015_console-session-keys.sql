-- Up Migration
-- A console session ends when its key no longer signs in: a finance session names its key (revoked or
-- expired, the session ends); an admin session holds an HMAC of the admin key keyed with the session's
-- id (which only the browser holds), so a gateway with another ADMIN_API_KEY refuses it. Sessions opened
-- before have neither and end.
DELETE FROM gw_console_sessions;
ALTER TABLE gw_console_sessions
  ADD COLUMN finance_key_id text,
  ADD COLUMN admin_key_mac text,
  ADD CONSTRAINT gw_console_sessions_key CHECK (CASE role WHEN 'admin' THEN admin_key_mac IS NOT NULL AND finance_key_id IS NULL ELSE finance_key_id IS NOT NULL AND admin_key_mac IS NULL END);

-- Down Migration
ALTER TABLE gw_console_sessions DROP CONSTRAINT gw_console_sessions_key, DROP COLUMN admin_key_mac, DROP COLUMN finance_key_id;
