import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the CLI finds the service and its keys: flags first, then the environment, then defaults. */
export interface Settings {
  baseUrl: string;
  /** The integrator's key (`sk_…`): every command but bootstrap. */
  apiKey?: string;
  /** The admin key: bootstrap and ops only. */
  adminKey?: string;
}

export class UsageError extends Error {}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/** What to say when an answer may come from the wrong address: which one was used, and how to set another. */
export const addressHint = (baseUrl: string): string =>
  `is the service running at ${baseUrl} (SANDBOX=true npm start)? Another address: --base-url URL or PAY_BASE_URL`;
/** Where `npm start` keeps the admin key it generated. */
const ADMIN_KEY_FILE = join('.data', 'admin-api-key');

export function readSettings(flags: { 'base-url'?: string; 'api-key'?: string; 'admin-key'?: string }, env: NodeJS.ProcessEnv, cwd: string): Settings {
  const baseUrl = (flags['base-url'] ?? env['PAY_BASE_URL'] ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(baseUrl)) throw new UsageError(`the base URL must be an origin such as ${DEFAULT_BASE_URL} (got '${baseUrl}')`);
  const keyFile = join(cwd, ADMIN_KEY_FILE);
  const adminKey = flags['admin-key'] ?? env['PAY_ADMIN_KEY'] ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined);
  return { baseUrl, apiKey: flags['api-key'] ?? env['PAY_API_KEY'], adminKey };
}

export function requireApiKey(settings: Settings): string {
  if (!settings.apiKey) throw new UsageError('no API key: set PAY_API_KEY (run `npx payments bootstrap` for a sandbox integrator) or pass --api-key');
  return settings.apiKey;
}

/** The sandbox objects `bootstrap` created, read back from the environment it printed. */
export interface Fixtures {
  merchant: string;
  customer: string;
  business: string;
  beneficiary: string;
  wholesaler: string;
  cashPoint: string;
  /** A second merchant, kept near zero so that `trigger refund.failed` can make a refund fail. */
  refundsMerchant: string;
}

export const FIXTURE_VARIABLES: Record<keyof Fixtures, string> = {
  merchant: 'PAY_MERCHANT',
  customer: 'PAY_CUSTOMER',
  business: 'PAY_BUSINESS',
  beneficiary: 'PAY_BENEFICIARY',
  wholesaler: 'PAY_WHOLESALER',
  cashPoint: 'PAY_CASH_POINT',
  refundsMerchant: 'PAY_REFUNDS_MERCHANT',
};

export function fixture(env: NodeJS.ProcessEnv, name: keyof Fixtures): string {
  const value = env[FIXTURE_VARIABLES[name]];
  if (!value) throw new UsageError(`${FIXTURE_VARIABLES[name]} is not set: run \`eval "$(npx payments bootstrap)"\` first`);
  return value;
}
