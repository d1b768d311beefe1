/** @pay/sdk: the TypeScript client of the payments API (/v1). Node 20+, no dependencies. */
export * from './client'; // Payments, its options and resources
export * from './admin'; // PaymentsAdmin: the admin API's operations, with the admin key
export { type RequestOptions, SDK_VERSION } from './http';
export { ListCall } from './pagination';
export * from './errors';
export { webhooks, verify as verifyWebhook, sign as signWebhook, WebhookVerificationError, type WebhookHeaders, type VerifyOptions } from './webhooks';
export type * from './types';
export { canonicalJson, ledgerEntryHash, ledgerSigningKeyId, LedgerExportVerifier, verifyLedgerExport, LEDGER_GENESIS_HASH, type LedgerChainEntry, type LedgerExportResult } from './ledger-chain';
