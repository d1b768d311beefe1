import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type IntegratorObjectRef, type ListObjects, type MessageKeys } from './common';
import type { BatchOutcome } from './errors';
import type { BankAccountResource, BankStatementImportResource, ListResource, PaymentResource, PayoutBatchResource, PayoutResource, PayoutStatus, RefundResource } from './resources';

/** The payments app: Pay (payments authorized by the customer) and their refunds. */

export interface CreatePaymentRequest {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same payment. */
  paymentId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  merchantConnection: string;
  returnUrl: string;
}

/** integratorId null: the hosted page, which reaches a payment by its unguessable id alone. */
export interface PaymentRef {
  integratorId: string | null;
  paymentId: string;
}

export interface AuthorizePaymentRequest extends PaymentRef {
  customer: { id: string; currency: Currency };
}

export interface CreateRefund {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same refund. */
  refundId: string;
  integratorId: string;
  paymentId: string;
  /** null: all that is still refundable. */
  amount: number | null;
  reason: string | null;
}

export interface CreateBankAccount {
  /** Allocated by the gateway and kept with the idempotency key. */
  bankAccountId: string;
  integratorId: string;
  /** The caller's connection (checked by the gateway) and the currency of its account. */
  connection: string;
  connectionCurrency: Currency;
  accountHolder: string;
  iban: string;
}

export interface CreatePayout {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same payout. */
  payoutId: string;
  integratorId: string;
  /** The caller's connection (checked by the gateway). */
  connection: string;
  bankAccount: string;
  amount: number;
  currency: Currency;
  description: string | null;
}

export interface PayoutRef {
  integratorId: string;
  payoutId: string;
}

/**
 * One transaction of a camt.053 statement, as the gateway read it (amounts in minor units, null when
 * unreadable): an `Ntry`, or one `TxDtls` of an entry that books several (a batch booking).
 */
export interface StatementEntry {
  /**
   * What identifies the transaction across statements: the entry's `AcctSvcrRef`, else the statement's
   * `Id`, `/` and the entry's `NtryRef` (with `#` and the transaction's place in a batch booking), else
   * a digest of its fields.
   */
  entryRef: string;
  endToEndId: string | null;
  amount: number | null;
  currency: string | null;
  creditDebit: 'CRDT' | 'DBIT' | null;
  status: string | null;
  /** ISO date or time of `BookgDt`. */
  bookingDate: string | null;
  /** `RtrInf/Rsn/Cd` of a return, else null. */
  returnCode: string | null;
  isReturn: boolean;
}

export interface ImportBankStatement {
  importId: string;
  statementId: string;
  entries: StatementEntry[];
}

export interface PaymentsTopics {
  'payments.create': { request: CreatePaymentRequest; reply: PaymentResource };
  'payments.retrieve': { request: PaymentRef; reply: PaymentResource };
  'payments.cancel': { request: PaymentRef; reply: PaymentResource };
  'payments.authorize': { request: AuthorizePaymentRequest; reply: PaymentResource };
  /**
   * Authorizations one caller sends together (those that queued while its last request was in flight),
   * at most AUTHORIZE_BATCH_MAX: each runs as `payments.authorize` would; each one's outcome, in order.
   */
  'payments.authorize-batch': { request: { requests: AuthorizePaymentRequest[] }; reply: { outcomes: BatchOutcome<PaymentResource>[] } };
  'payments.decline': { request: PaymentRef; reply: PaymentResource };
  'payments.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'payments.list': { request: ListObjects<'order_reference' | 'status' | 'merchant_connection'>; reply: ListResource<PaymentResource> };
  'payments.refunds.create': { request: CreateRefund; reply: RefundResource };
  'payments.refunds.retrieve': { request: IntegratorObjectRef; reply: RefundResource };
  'payments.refunds.list': { request: ListObjects<'payment'>; reply: ListResource<RefundResource> };
  'payments.bank-accounts.create': { request: CreateBankAccount; reply: BankAccountResource };
  'payments.bank-accounts.retrieve': { request: IntegratorObjectRef; reply: BankAccountResource };
  'payments.bank-accounts.list': { request: ListObjects<'connection'>; reply: ListResource<BankAccountResource> };
  'payments.payouts.create': { request: CreatePayout; reply: PayoutResource };
  'payments.payouts.retrieve': { request: PayoutRef; reply: PayoutResource };
  'payments.payouts.cancel': { request: PayoutRef; reply: PayoutResource };
  'payments.payouts.list': { request: ListObjects<'connection' | 'status'> & { filters: { status?: PayoutStatus } }; reply: ListResource<PayoutResource> };
  'payments.payout-batches.create': { request: { batchId: string; currency: Currency }; reply: PayoutBatchResource };
  /** The batch's pain.001.001.09 file. */
  'payments.payout-batches.file': { request: { batchId: string }; reply: { xml: string } };
  'payments.bank-statements.import': { request: ImportBankStatement; reply: BankStatementImportResource };
  /** Whether a payout batch or a bank statement import of this id was made (the gateway's audit trail reads a change back after a crash). */
  'payments.created-objects.exists': { request: { object: 'payout_batch' | 'bank_statement_import'; id: string }; reply: { exists: boolean } };
  /** The newest closed batches first (the console's list; the admin API has none). */
  'payments.payout-batches.list': { request: { limit: number }; reply: PayoutBatchResource[] };
  /** The newest statement imports first, each with when it was imported. */
  'payments.bank-statements.list': { request: { limit: number }; reply: (BankStatementImportResource & { created_at: string })[] };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const PAYMENTS_MESSAGE_KEYS = {
  'payments.create': 'paymentId',
  'payments.retrieve': 'paymentId',
  'payments.cancel': 'paymentId',
  'payments.authorize': 'paymentId',
  /** A batch is about many payments (one payment's requests race safely: its stream's revision decides). */
  'payments.authorize-batch': null,
  'payments.decline': 'paymentId',
  'payments.apply-deadlines': null,
  'payments.list': null,
  /** By the payment refunded: concurrent refunds of one payment stay in order. */
  'payments.refunds.create': 'paymentId',
  'payments.refunds.retrieve': 'id',
  'payments.refunds.list': null,
  'payments.bank-accounts.create': 'bankAccountId',
  'payments.bank-accounts.retrieve': 'id',
  'payments.bank-accounts.list': null,
  'payments.payouts.create': 'payoutId',
  'payments.payouts.retrieve': 'payoutId',
  'payments.payouts.cancel': 'payoutId',
  'payments.payouts.list': null,
  'payments.payout-batches.create': 'batchId',
  'payments.payout-batches.file': 'batchId',
  /** By statement: a repeated import waits for the first. */
  'payments.bank-statements.import': 'statementId',
  'payments.created-objects.exists': 'id',
  'payments.payout-batches.list': null,
  'payments.bank-statements.list': null,
} as const satisfies MessageKeys<PaymentsTopics>;

export const PAYMENTS_TOPICS = topicsOf(PAYMENTS_MESSAGE_KEYS);
