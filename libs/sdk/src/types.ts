/**
 * Request parameters and resources of the /v1 API, written for the SDK (it imports nothing of the
 * server). Amounts are integers in minor units; times are ISO 8601 strings.
 */

export type Currency = 'DZD' | 'MAD' | 'TND' | 'XOF';

/** A time filter: an ISO 8601 string with a zone, or a Date (sent as its ISO string). */
export type Time = string | Date;

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface ListParams {
  /** 1 to 100, default 10: the size of one page (auto-pagination fetches as many pages as needed). */
  limit?: number;
  /** The id of the last object of the previous page. */
  starting_after?: string;
}

export interface CreatedRange {
  /** Inclusive. */
  created_gte?: Time;
  /** Exclusive. */
  created_lt?: Time;
}

// ---- payments (Pay) ----
export type PaymentStatus = 'pending' | 'succeeded' | 'declined' | 'canceled' | 'expired';

export interface Payment {
  id: string;
  object: 'payment';
  status: PaymentStatus;
  decline_reason: 'insufficient_balance' | 'customer_declined' | null;
  amount: number;
  currency: Currency;
  order_reference: string;
  merchant_connection: string;
  authorization_url: string | null;
  return_url: string;
  fee_amount: number | null;
  net_amount: number | null;
  amount_refunded: number;
  expires_at: string;
  succeeded_at: string | null;
  created_at: string;
}

export interface PaymentCreateParams {
  amount: number;
  currency: Currency;
  order_reference: string;
  merchant_connection: string;
  /** An absolute https:// URL. */
  return_url: string;
}

export interface PaymentListParams extends ListParams, CreatedRange {
  order_reference?: string;
  status?: PaymentStatus;
  merchant_connection?: string;
}

// ---- refunds ----
export interface Refund {
  id: string;
  object: 'refund';
  payment: string;
  amount: number;
  currency: Currency;
  reason: string | null;
  status: 'succeeded' | 'failed' | 'pending';
  failure_reason: 'insufficient_balance' | null;
  created_at: string;
}

export interface RefundCreateParams {
  /** A `pay_…` id. */
  payment: string;
  /** Defaults to what is still refundable. */
  amount?: number;
  reason?: string;
}

export interface RefundListParams extends ListParams {
  payment?: string;
}

// ---- bank accounts and payouts ----
export interface BankAccount {
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

export interface BankAccountCreateParams {
  connection: string;
  account_holder: string;
  /** Spaces ignored; its country must use the connection's currency. */
  iban: string;
}

export interface BankAccountListParams extends ListParams {
  connection?: string;
}

export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';

export interface Payout {
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

export interface PayoutCreateParams {
  connection: string;
  bank_account: string;
  amount: number;
  currency: Currency;
  description?: string;
}

export interface PayoutListParams extends ListParams, CreatedRange {
  connection?: string;
  status?: PayoutStatus;
}

export interface PayoutBatch {
  object: 'payout_batch';
  id: string;
  currency: Currency;
  count: number;
  total_amount: number;
  created_at: string;
}

export interface BankStatementImport {
  object: 'bank_statement_import';
  id: string;
  statement_id: string;
  entries: number;
  paid: number;
  failed: number;
  unmatched: { end_to_end_id: string | null; amount: number | null; currency: string | null; reason: string }[];
  duplicate: boolean;
}

// ---- cash payments ----
export type CashPaymentStatus = 'awaiting_payment' | 'succeeded' | 'expired' | 'canceled';

export interface CashPayment {
  id: string;
  object: 'cash_payment';
  status: CashPaymentStatus;
  amount: number;
  currency: Currency;
  order_reference: string;
  merchant_connection: string;
  payment_reference: string;
  qr_code_url: string;
  instructions_url: string;
  expires_at: string;
  cash_point: string | null;
  receipt_number: string | null;
  fee_amount: number | null;
  net_amount: number | null;
  paid_at: string | null;
  created_at: string;
}

export interface CashPaymentCreateParams {
  amount: number;
  currency: Currency;
  order_reference: string;
  merchant_connection: string;
  /** 5 minutes to 30 days ahead; default 72 hours. */
  expires_at?: string;
}

export interface CashPaymentListParams extends ListParams, CreatedRange {
  order_reference?: string;
  status?: CashPaymentStatus;
  payment_reference?: string;
}

// ---- supplier payments and beneficiaries ----
export type SupplierPaymentStatus = 'awaiting_approval' | 'succeeded' | 'rejected' | 'declined' | 'canceled' | 'expired';

export interface SupplierPayment {
  id: string;
  object: 'supplier_payment';
  status: SupplierPaymentStatus;
  decline_reason: 'insufficient_balance' | 'beneficiary_unavailable' | null;
  payer_connection: string;
  beneficiary: string;
  amount: number;
  currency: Currency;
  invoice_reference: string;
  description: string | null;
  approval_url: string | null;
  fee_amount: number | null;
  expires_at: string;
  approved_at: string | null;
  succeeded_at: string | null;
  created_at: string;
}

export interface SupplierPaymentCreateParams {
  payer_connection: string;
  beneficiary: string;
  amount: number;
  currency: Currency;
  invoice_reference: string;
  /** At most 1000 characters. */
  description?: string;
}

export interface SupplierPaymentListParams extends ListParams {
  invoice_reference?: string;
  status?: SupplierPaymentStatus;
}

export interface Beneficiary {
  id: string;
  object: 'beneficiary';
  account_name: string;
  status: 'authorized' | 'revoked';
  created_at: string;
}

export interface BeneficiaryRetrieveParams {
  /** Required: the business connection the beneficiary belongs to. */
  payer_connection: string;
}

// ---- collections ----
export type CollectionStatus = 'awaiting_collection' | 'collected_awaiting_deposit' | 'deposit_under_review' | 'settled';

export interface Collection {
  id: string;
  object: 'collection';
  status: CollectionStatus;
  amount: number;
  currency: Currency;
  order_reference: string;
  beneficiary_connection: string;
  collected_at: string | null;
  deposit: {
    point: string;
    due_at: string;
    overdue: boolean;
    deposited_late: boolean;
    amount_expected: number;
    amount_received: number | null;
    validated_at: string | null;
  } | null;
  settlement: { gross_amount: number; fee_amount: number; net_amount: number; currency: Currency; settled_at: string } | null;
  created_at: string;
}

export interface CollectionCreateParams {
  amount: number;
  currency: Currency;
  order_reference: string;
  /** A wholesaler connection of yours. */
  beneficiary_connection: string;
}

export interface CollectionListParams extends ListParams, CreatedRange {
  order_reference?: string;
  status?: CollectionStatus;
}

export interface HandoverCode {
  object: 'handover_code';
  collection: string;
  code: string;
}

// ---- balances ----
export interface Balance {
  object: 'balance';
  owner: string;
  currency: Currency;
  available: number;
}

export type BalanceTransactionType = 'payment' | 'cash_payment' | 'supplier_payment' | 'settlement' | 'refund' | 'topup' | 'payout' | 'payout_reversal' | 'adjustment';

export interface BalanceTransaction {
  id: string;
  object: 'balance_transaction';
  connection: string;
  type: BalanceTransactionType;
  source: string;
  /** Signed change of `available`. */
  amount: number;
  fee_amount: number;
  currency: Currency;
  balance_after: number;
  created_at: string;
}

export interface BalanceTransactionListParams extends ListParams, CreatedRange {
  /** Required: one of your connections. */
  connection: string;
  /** An object id (`pay_…`, `re_…`, …). */
  source?: string;
}

// ---- events and webhook endpoints ----
export type EventType =
  | 'payment.succeeded'
  | 'payment.declined'
  | 'payment.canceled'
  | 'payment.expired'
  | 'cash_payment.succeeded'
  | 'cash_payment.expired'
  | 'cash_payment.canceled'
  | 'supplier_payment.succeeded'
  | 'supplier_payment.declined'
  | 'supplier_payment.rejected'
  | 'supplier_payment.canceled'
  | 'supplier_payment.expired'
  | 'collection.collected'
  | 'collection.deposit_under_review'
  | 'settlement.completed'
  | 'refund.succeeded'
  | 'refund.failed'
  | 'payout.in_transit'
  | 'payout.paid'
  | 'payout.failed'
  | 'payout.canceled'
  | 'collection.deposit_overdue'
  | 'webhook_endpoint.disabled';

export interface Event<D = Record<string, unknown>> {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  /** The object as of this change. */
  data: D;
}

export interface EventListParams extends ListParams, CreatedRange {
  type?: EventType;
  object_id?: string;
}

/** An event's delivery: the same webhook_delivery as an endpoint's deliveries list (EndpointDelivery). */
export type EventDelivery = EndpointDelivery;

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled_events: ('*' | EventType)[];
  /** Only in the answers of create and rotateSecret: store it then. */
  secret?: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

export interface WebhookEndpointCreateParams {
  url: string;
  /** Default `['*']`. */
  enabled_events?: ('*' | EventType)[];
}

export interface WebhookEndpointUpdateParams {
  url?: string;
  enabled_events?: ('*' | EventType)[];
  status?: 'enabled' | 'disabled';
}

export interface DeletedWebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  deleted: true;
}

export interface EndpointDelivery {
  id: string;
  object: 'webhook_delivery';
  event: string;
  endpoint: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  /** How many attempts were made. */
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_response_status: number | null;
  created_at: string;
  /** Every attempt, oldest first. */
  attempt_history: { attempted_at: string; status_code: number | null; latency_ms: number; error: string | null }[];
}

export interface EndpointDeliveryListParams extends ListParams {
  status?: 'pending' | 'succeeded' | 'failed' | 'canceled';
}

export interface WebhookEndpointRecoverParams {
  /** Failed deliveries of events created at or after this time are sent again. */
  since: Time;
}

export interface Recovery {
  object: 'recovery';
  endpoint: string;
  redelivered: number;
}

// ---- sandbox test helpers ----
export interface Clock {
  object: 'clock';
  now: string;
}

// ---- admin: the operator's view (/admin/v1/operations, the admin key) ----
/** An app that did not answer (or failed to): the others' answers are still given. */
export interface OperationsAppError {
  app: 'payments' | 'cash' | 'supplier-payments' | 'collections';
  code: string;
  message: string;
}

/** A list gathered from every app that keeps catch-up subscriptions, with the apps that did not answer. */
export interface OperationsList<T> extends List<T> {
  errors: OperationsAppError[];
}

export interface Subscription {
  /** e.g. `payments.payment-views`: its app, a dot, its name. */
  id: string;
  object: 'subscription';
  app: OperationsAppError['app'];
  /** The last committed commit position (a decimal string), null before the first batch. */
  checkpoint: string | null;
  checkpoint_updated_at: string | null;
  /** Seconds since it last found nothing more to handle (0 when caught up). */
  lag_seconds: number;
  parked_events: number;
  running: boolean;
}

export interface ParkedEvent {
  object: 'parked_event';
  subscription: string;
  event: string;
  stream: string;
  type: string;
  error: string;
  parked_at: string;
}

/** One parked event (both), every one of a subscription (`subscription_id`), or all (neither). */
export interface ParkedEventReplayParams {
  subscription_id?: string;
  event_id?: string;
}

export interface ParkedEventReplay {
  object: 'parked_event_replay';
  /** Handled this time and no longer parked. */
  replayed: number;
  /** Failed again: still parked, with the new error. */
  failed: { subscription: string; event: string; error: string }[];
  errors: OperationsAppError[];
}

export interface FailedDelivery {
  id: string;
  object: 'failed_delivery';
  endpoint: string;
  integrator: string;
  event: string;
  event_type: string;
  /** `failed`: retries exhausted; `retrying`: failed at least once, another attempt scheduled. */
  status: 'failed' | 'retrying';
  attempts: number;
  last_error: string | null;
  last_attempt_at: string | null;
}

export interface FailedDeliveryListParams extends ListParams {
  endpoint_id?: string;
}

export interface RedeliverFailedParams {
  /** Only this endpoint's failed deliveries (default: every endpoint's). */
  endpoint_id?: string;
}

export interface Redelivery {
  object: 'redelivery';
  endpoint: string | null;
  redelivered: number;
}

export interface EndpointHealth {
  id: string;
  object: 'endpoint_health';
  integrator: string;
  url: string;
  status: 'enabled' | 'disabled';
  /** When its current run of failures began (service clock). */
  failing_since: string;
  /** Failing for more than an hour. */
  flagged: boolean;
}

/** A scope of a restricted key: `<resource>:read` or `<resource>:write` (write includes read). */
export type ApiKeyScope = `${'payments' | 'cash_payments' | 'supplier_payments' | 'beneficiaries' | 'collections' | 'refunds' | 'payouts' | 'bank_accounts' | 'balances' | 'events' | 'webhook_endpoints'}:${'read' | 'write'}`;

/** An API key, never with its secret (`redacted`: the secret's first 3 and last 4 characters). */
export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string | null;
  scopes: ['*'] | ApiKeyScope[];
  redacted: string | null;
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** A key just created or rolled: its secret `api_key`, shown only in this answer. */
export interface ApiKeyWithSecret extends ApiKey {
  api_key: string;
}

export interface ApiKeyCreateParams {
  name: string;
  /** `['*']` for every /v1 route (an `sk_` key), or restricted scopes (an `rk_` key). */
  scopes: ['*'] | ApiKeyScope[];
  expires_at?: Time;
}

export interface ApiKeyRollParams {
  /** Seconds the old key keeps working, 0 to 604800 (default 0). */
  expires_in?: number;
}

export interface AuditEvent {
  id: string;
  object: 'audit_event';
  /** `<object>.<verb>`: `api_key.created`, `webhook_endpoint.secret_rotated`, `refund.created`, … */
  action: string;
  actor: { type: 'api_key' | 'admin' | 'finance_key'; id: string | null };
  integrator: string | null;
  target: { object: string; id: string };
  /** The Request-Id of the request that made the change. */
  request_id: string | null;
  created_at: string;
}

export interface AuditEventListParams extends ListParams, CreatedRange {
  action?: string;
}

export interface AdminAuditEventListParams extends AuditEventListParams {
  integrator?: string;
}
