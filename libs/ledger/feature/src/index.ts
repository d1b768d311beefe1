export * from './ledger.migrations';
// The query behind fee revenue (parameters: from, to, the fee accounts), for the finance bench's plans.
export { FEE_REVENUE_SQL } from './finance-reads';
export * from './ledger.service';
export * from './ledger.handlers';
export * from './ledger.module';
// The host configures the fee schedule through the feature, never the domain directly.
export { DEFAULT_FEE_SCHEDULE, parseFeeSchedule, type FeeSchedule } from '@pay/ledger-domain';
export { readLedgerSigningKey, SIGNING_KEY_FILE, type LedgerSigningKey } from './signing-key';
export { LedgerChain } from './chain.service';
export { signingKey } from './signing-key';
