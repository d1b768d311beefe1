-- Up Migration
-- Finance keys: read-only access to the ledger for finance, belonging to no integrator.
ALTER TABLE gw_api_keys
  ALTER COLUMN integrator_id DROP NOT NULL,
  ADD COLUMN role text NOT NULL DEFAULT 'integrator' CHECK (role IN ('integrator', 'finance')),
  ADD COLUMN name text,
  ADD CONSTRAINT gw_api_keys_owner CHECK ((role = 'integrator') = (integrator_id IS NOT NULL));

-- Down Migration
DELETE FROM gw_api_keys WHERE role = 'finance';
ALTER TABLE gw_api_keys DROP CONSTRAINT gw_api_keys_owner, DROP COLUMN name, DROP COLUMN role, ALTER COLUMN integrator_id SET NOT NULL;
