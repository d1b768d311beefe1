import type { Currency } from '@pay/kernel';

/** Resource shapes as the API returns them (specification, "Resources and their fields"). */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'declined', 'canceled', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentDeclineReason = 'insufficient_balance' | 'customer_declined';

export interface PaymentResource {
  id: string;
  object: 'payment';
  status: PaymentStatus;
  decline_reason: PaymentDeclineReason | null;
  amount: number;
  currency: Currency;
  order_reference: string;
  merchant_connection: string;
  authorization_url: string | null;
  return_url: string;
  fee_amount: number | null;
  net_amount: number | null;
  /** What succeeded refunds returned to the customer so far (0 until a refund). */
  amount_refunded: number;
  expires_at: string;
  succeeded_at: string | null;
  created_at: string;
}

export type RefundStatus = 'succeeded' | 'failed';

export interface RefundResource {
  id: string;
  object: 'refund';
  payment: string;
  amount: number;
  currency: Currency;
  reason: string | null;
  /** `pending` only while its ledger step is under way: a create answers once it is decided. */
  status: RefundStatus | 'pending';
  failure_reason: 'insufficient_balance' | null;
  created_at: string;
}

/** A bank account registered for a connection's payouts; the full IBAN is answered only at creation. */
export interface BankAccountResource {
  id: string;
  object: 'bank_account';
  connection: string;
  account_holder: string;
  country: string;
  iban_last4: string;
  currency: Currency;
  created_at: string;
  /** Only in the answer to the create. */
  iban?: string;
}

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export interface PayoutResource {
  id: string;
  object: 'payout';
  connection: string;
  bank_account: string;
  amount: number;
  currency: Currency;
  description: string | null;
  fee_amount: 0;
  status: PayoutStatus;
  failure_reason: 'returned_by_bank' | null;
  failure_code: string | null;
  batch: string | null;
  created_at: string;
  paid_at: string | null;
}

export interface PayoutBatchResource {
  object: 'payout_batch';
  id: string;
  currency: Currency;
  count: number;
  total_amount: number;
  created_at: string;
}

export interface UnmatchedStatementEntry {
  end_to_end_id: string | null;
  amount: number | null;
  currency: string | null;
  reason: string;
}

export interface BankStatementImportResource {
  object: 'bank_statement_import';
  id: string;
  statement_id: string;
  entries: number;
  paid: number;
  failed: number;
  unmatched: UnmatchedStatementEntry[];
  duplicate: boolean;
}

export type ConnectionKind = 'merchant' | 'business' | 'wholesaler';

export interface IntegratorResource {
  id: string;
  object: 'integrator';
  name: string;
  created_at: string;
}

export interface ConnectionResource {
  id: string;
  object: 'connection';
  integrator: string;
  kind: ConnectionKind;
  name: string;
  currency: Currency;
  created_at: string;
}

export interface CustomerResource {
  id: string;
  object: 'customer';
  name: string;
  phone: string;
  currency: Currency;
  created_at: string;
}

export interface BalanceResource {
  object: 'balance';
  owner: string;
  currency: Currency;
  available: number;
}

export const BALANCE_TRANSACTION_TYPES = ['payment', 'cash_payment', 'supplier_payment', 'settlement', 'refund', 'topup', 'payout', 'payout_reversal', 'adjustment'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** One movement of one connection's account: a posting, seen from the connection. */
export interface BalanceTransactionResource {
  id: string;
  object: 'balance_transaction';
  connection: string;
  type: BalanceTransactionType;
  /** The object that caused it (its journal entry's reference). */
  source: string;
  /** Signed change of `available`: positive for a credit, negative for a debit. */
  amount: number;
  fee_amount: number;
  currency: Currency;
  balance_after: number;
  created_at: string;
}

export interface TopupResource {
  id: string;
  object: 'topup';
  account: string;
  amount: number;
  currency: Currency;
  created_at: string;
}

export interface PostingResource {
  account: string;
  direction: 'debit' | 'credit';
  amount: number;
  currency: Currency;
}

export interface JournalEntryResource {
  id: string;
  object: 'journal_entry';
  reference: string;
  kind: string;
  created_at: string;
  postings: PostingResource[];
}

export interface TrialBalanceResource {
  object: 'trial_balance';
  currencies: { currency: Currency; total_debits: number; total_credits: number }[];
}

export interface ListResource<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface ClockResource {
  object: 'clock';
  now: string;
}

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** `secret` only in the answers of create and rotate_secret. */
export interface WebhookEndpointResource {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled_events: string[];
  secret?: string;
  status: WebhookEndpointStatus;
  /** Why it was disabled: `disabled_by_integrator`, or `failing_for_5_days` when the service disabled it. */
  disabled_reason: string | null;
  created_at: string;
}

/** One delivery of an event to one endpoint, as an endpoint's deliveries list shows it. */
export interface EndpointDeliveryResource {
  id: string;
  object: 'webhook_delivery';
  event: string;
  endpoint: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_response_status: number | null;
}

export interface DeliveryAttemptResource {
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DeliveryResource {
  id: string;
  object: 'webhook_delivery';
  event: string;
  webhook_endpoint: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempts: DeliveryAttemptResource[];
  next_attempt_at: string | null;
  created_at: string;
}

// ---- finance (read-only ledger access) ----
export interface LedgerAccountResource {
  object: 'ledger_account';
  id: string;
  kind: string;
  currency: Currency;
  balance: number;
  created_at: string;
}

export interface StatementLineResource {
  entry: string;
  reference: string;
  kind: string;
  created_at: string;
  direction: 'debit' | 'credit';
  amount: number;
  /** The running balance after this line. */
  balance_after: number;
}

export interface StatementResource {
  object: 'statement';
  account: string;
  currency: Currency;
  from: string;
  to: string;
  opening_balance: number;
  closing_balance: number;
  total_debits: number;
  total_credits: number;
  lines: StatementLineResource[];
  has_more: boolean;
}

export interface FeeRevenueResource {
  object: 'fee_revenue';
  from: string;
  to: string;
  currencies: { currency: Currency; total: number; by_use_case: { payment: number; cash_payment: number; supplier_payment: number; settlement: number } }[];
}

export interface CashInTransitResource {
  object: 'cash_in_transit';
  currencies: { currency: Currency; with_carriers: number; at_cash_points: number }[];
  collections: { id: string; amount: number; currency: Currency; status: string; collected_at: string | null; due_at: string | null; overdue: boolean; point: string | null }[];
}
