-- Up Migration
-- A run's id, as its audit event names it: its kind's prefix and random base62 characters (rec_…,
-- chv_…), like every id. Runs recorded before keep the id their events name (run_<n>).
ALTER TABLE gw_console_finance_runs ADD COLUMN run_id text UNIQUE;
UPDATE gw_console_finance_runs SET run_id = 'run_' || id;
ALTER TABLE gw_console_finance_runs ALTER COLUMN run_id SET NOT NULL;

-- Down Migration
ALTER TABLE gw_console_finance_runs DROP COLUMN run_id;
