import { join } from 'node:path';
import { readBrand, type Brand } from '@pay/hosted-ui';
import { readOrCreateSecretFile, refuseDataDirInUse } from '@pay/platform';
import { ADMIN_API_KEY_RANDOM_LENGTH, CONFIGURED_SECRET_LENGTH_MAX, CONFIGURED_SECRET_LENGTH_MIN, randomBase62, RATE_LIMIT_PER_SECOND_DEFAULT, RATE_LIMIT_PER_SECOND_MAX, type EnvReader } from '@pay/kernel';

export interface GatewayConfig {
  sandbox: boolean;
  adminApiKey: string;
  rateLimitPerSecond: number;
  publicBaseUrl: string;
  /** The platform's name and colour on the hosted pages (BRAND_NAME, BRAND_COLOR). */
  brand: Brand;
}
export const GATEWAY_CONFIG = Symbol('GatewayConfig');

/** What the gateway reads of its host's configuration. */
export interface GatewayHost {
  dataDir: string;
  sandbox: boolean;
  publicBaseUrl: string;
  /** This process runs the embedded PostgreSQL under dataDir (no database URL given), and so locks it. */
  embeddedDatabase: boolean;
}

/** The gateway's settings: the admin key, the rate limit, sandbox, the public origin and the hosted pages' brand. */
export function readGatewayConfig(
  read: EnvReader,
  host: GatewayHost,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): GatewayConfig {
  const rateLimitPerSecond = read.int('RATE_LIMIT_PER_SECOND', RATE_LIMIT_PER_SECOND_DEFAULT, { min: 0, max: RATE_LIMIT_PER_SECOND_MAX });
  const given = read.string('ADMIN_API_KEY');
  if (given !== undefined && (given.length < CONFIGURED_SECRET_LENGTH_MIN || given.length > CONFIGURED_SECRET_LENGTH_MAX || !/^[A-Za-z0-9_]+$/.test(given))) {
    read.problems.push(`ADMIN_API_KEY must be ${CONFIGURED_SECRET_LENGTH_MIN} to ${CONFIGURED_SECRET_LENGTH_MAX} characters of letters, digits and _`);
  }
  const brand = readBrand(read);
  read.done();
  return { sandbox: host.sandbox, publicBaseUrl: host.publicBaseUrl, rateLimitPerSecond, brand, adminApiKey: given ?? adminKeyUnder(host, print) };
}

/**
 * The admin key generated at first start and kept under DATA_DIR; printed once, by the process that made
 * it, as the contract says (a deployment whose stdout goes to a log collector sets ADMIN_API_KEY instead).
 */
function adminKeyUnder({ dataDir, embeddedDatabase }: GatewayHost, print: (line: string) => void): string {
  const file = join(dataDir, 'admin-api-key');
  const { secret, created } = readOrCreateSecretFile(file, () => {
    // A start that will be refused (another instance runs its embedded PostgreSQL on this DATA_DIR) must
    // not make a key that a later start would use. A gateway on an external database shares DATA_DIR
    // with its launcher and the other instances: they read one key.
    if (embeddedDatabase) refuseDataDirInUse(dataDir);
    return `admin_${randomBase62(ADMIN_API_KEY_RANDOM_LENGTH)}\n`;
  });
  const key = secret.trim();
  if (created) print(`Generated the admin API key (shown once; stored in ${file}):\n\n    ${key}\n`);
  return key;
}
