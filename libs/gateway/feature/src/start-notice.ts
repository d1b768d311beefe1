import { join } from 'node:path';

/**
 * The start log's line for whoever just ran the service: whether the sandbox is on (the test helpers
 * and the movable clock) and where the admin key is.
 */
export function startNotice(gateway: { sandbox: boolean }, dataDir: string, env: NodeJS.ProcessEnv): string {
  const sandbox = gateway.sandbox
    ? 'sandbox on: /v1/test_helpers/* and the movable service clock are enabled (never in production)'
    : 'sandbox off: no test helpers (SANDBOX=true enables them, for trying payments)';
  const adminKey = env['ADMIN_API_KEY'] ? 'the admin API key is the one in ADMIN_API_KEY' : `the admin API key is in ${join(dataDir, 'admin-api-key')}`;
  return `${sandbox}; ${adminKey}`;
}
