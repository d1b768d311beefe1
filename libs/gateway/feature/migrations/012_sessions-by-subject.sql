-- Up Migration
-- A reset PIN or password ends its subject's hosted sessions: found by subject, not by a scan.
CREATE INDEX gw_sessions_subject ON gw_sessions (subject_id, kind);

-- Down Migration
DROP INDEX gw_sessions_subject;
