export * from './ledger.migrations';
export * from './ledger.service';
export * from './ledger.handlers';
export * from './ledger.module';
// The host configures the fee schedule through the feature, never the domain directly.
export { DEFAULT_FEE_SCHEDULE, parseFeeSchedule, type FeeSchedule } from '@pay/ledger-domain';
