import { EnvReader } from '@pay/kernel';
import { readGatewayConfig, type GatewayConfig } from '@pay/gateway-feature';
import { readFeeSchedule, type FeeSchedule } from '@pay/ledger-feature';
import { readHostConfig, type HostConfig } from '@pay/runtime';

/** Everything the all-in-one service reads from its environment, validated at start. */
export interface ServiceConfig {
  host: HostConfig;
  gateway: GatewayConfig;
  feeSchedule: FeeSchedule;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env, print?: (line: string) => void): ServiceConfig {
  const read = new EnvReader(env);
  const host = readHostConfig(read);
  const feeSchedule = readFeeSchedule(read);
  const gateway = readGatewayConfig(read, host, print); // reports every problem found so far
  return { host, gateway, feeSchedule };
}
