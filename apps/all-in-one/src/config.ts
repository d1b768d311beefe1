import { randomBase62, EnvReader, DAY_MS, MINUTE_MS } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE, parseFeeSchedule, type FeeSchedule } from '@pay/ledger-feature';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Everything the all-in-one service reads from its environment, validated at start. */
export interface ServiceConfig {
  port: number;
  host: string;
  dataDir: string;
  /** An external PostgreSQL; when absent, embedded PostgreSQL runs under dataDir. */
  databaseUrl: string | undefined;
  adminApiKey: string | undefined;
  sandbox: boolean;
  publicBaseUrl: string;
  rateLimitPerSecond: number;
  feeSchedule: FeeSchedule;
  dbPoolMax: number;
  paymentAuthorizationTtlMs: number;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const read = new EnvReader(env);
  const port = read.int('PORT', 3000, { min: 0, max: 65_535 });
  const config: ServiceConfig = {
    port,
    host: read.string('HOST', '127.0.0.1'),
    dataDir: resolve(read.string('DATA_DIR', './.data')),
    databaseUrl: read.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    adminApiKey: read.string('ADMIN_API_KEY'),
    sandbox: read.bool('SANDBOX', false),
    publicBaseUrl: read.url('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
    rateLimitPerSecond: read.int('RATE_LIMIT_PER_SECOND', 100, { min: 0, max: 1_000_000 }),
    feeSchedule: read.json('FEE_SCHEDULE', DEFAULT_FEE_SCHEDULE, (value) => {
      const parsed = parseFeeSchedule(value);
      return typeof parsed === 'string' ? parsed : undefined;
    }),
    dbPoolMax: read.int('DB_POOL_MAX', 20, { min: 2, max: 200 }),
    paymentAuthorizationTtlMs: 30 * MINUTE_MS,
  };
  const adminKey = config.adminApiKey;
  if (adminKey !== undefined && (adminKey.length < 16 || adminKey.length > 200 || !/^[A-Za-z0-9_]+$/.test(adminKey))) {
    read.problems.push('ADMIN_API_KEY must be 16 to 200 characters of letters, digits and _');
  }
  read.done();
  // A schedule given as JSON is only a partial override: merge it now that it is known to be valid.
  if (env['FEE_SCHEDULE']) config.feeSchedule = parseFeeSchedule(JSON.parse(env['FEE_SCHEDULE'])) as FeeSchedule;
  return config;
}

/**
 * ADMIN_API_KEY, or the one generated at first start and kept under DATA_DIR. Printed once, when made.
 */
export function resolveAdminApiKey(config: ServiceConfig, print: (line: string) => void): string {
  if (config.adminApiKey) return config.adminApiKey;
  const file = join(config.dataDir, 'admin-api-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const key = `admin_${randomBase62(40)}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  print(`Generated the admin API key (shown once; stored in ${file}):\n\n    ${key}\n`);
  return key;
}

export const SUPPLIER_APPROVAL_TTL_MS = 7 * DAY_MS;
