import { EnvReader } from '@pay/kernel';
import { readGatewayConfig, type GatewayConfig } from '@pay/gateway-feature';
import { readFeeSchedule, readLedgerSigningKey, type FeeSchedule, type LedgerSigningKey } from '@pay/ledger-feature';
import { embedsDatabase, readHostConfig, type HostConfig } from '@pay/runtime';

/** Everything the all-in-one service reads from its environment, validated at start. */
export interface ServiceConfig {
  host: HostConfig;
  gateway: GatewayConfig;
  feeSchedule: FeeSchedule;
  /** The key that signs the ledger chain's head (LEDGER_SIGNING_KEY, or generated under DATA_DIR). */
  ledgerSigningKey: LedgerSigningKey;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env, print?: (line: string) => void): ServiceConfig {
  const read = new EnvReader(env);
  const host = readHostConfig(read);
  const feeSchedule = readFeeSchedule(read);
  const ledgerSigningKey = readLedgerSigningKey(read, host.dataDir);
  const gateway = readGatewayConfig(read, { ...host, embeddedDatabase: embedsDatabase(host, 'all-in-one') }, print); // reports every problem found so far
  return { host, gateway, feeSchedule, ledgerSigningKey };
}
