import type { Currency } from '@pay/kernel';
import type { CashTopics } from './cash';
import { CASH_TOPICS } from './cash';
import type { ReconciliationTopics } from './reconciliation';
import type { CollectionsTopics } from './collections';
import { COLLECTIONS_TOPICS } from './collections';
import type { EventResource, IntegrationEvent } from './events';
import type { SupplierPaymentsTopics } from './supplier-payments';
import type { OperationsTopics } from './operations';
import { operationsTopicsOf, WEBHOOKS_OPERATIONS_TOPICS } from './operations';
import { SUPPLIER_PAYMENTS_TOPICS } from './supplier-payments';
import type {
  BalanceResource,
  CashInTransitResource,
  FeeRevenueResource,
  LedgerAccountResource,
  StatementResource,
  BalanceTransactionResource,
  DeliveryResource,
  EndpointDeliveryResource,
  WebhookEndpointResource,
  JournalEntryResource,
  ListResource,
  PaymentResource,
  RefundResource,
  TopupResource,
  TrialBalanceResource,
} from './resources';

/**
 * Request/reply messages between apps, by topic. The bus carries them as JSON; a reply is either the
 * value below or an ErrorBody. This map is the whole surface one app may call on another.
 */

// ---- ledger ----
export type LedgerAccountKind = 'customer' | 'connection' | 'beneficiary' | 'cash_point';

/**
 * The ledger account of the cash held at a cash point, one per currency it has received:
 * `<cash point id>:<CUR>` (e.g. `cp_…:DZD`), opened on first use.
 */
export const cashPointAccount = (cashPointId: string, currency: Currency): string => `${cashPointId}:${currency}`;

export interface OpenAccount {
  owner: string;
  kind: LedgerAccountKind;
  currency: Currency;
}

export interface GetBalance {
  owner: string;
  /** ISO time: the balance as it stood then (movements created at or before it). */
  asOf?: string;
}

export interface CreateTopup {
  /** Idempotency: the top-up id is chosen by the caller; a repeat returns the same top-up. */
  topupId: string;
  owner: string;
  amount: number;
  currency: Currency;
}

/** The use case whose fee rule applies (fee schedule key). */
export type FeeUseCase = 'payment' | 'cash_payment' | 'supplier_payment' | 'settlement';

/** Movements of physical cash between custody accounts (handover, deposit, write-off): never a fee. */
export type CashMovementKind = 'cash_handover' | 'cash_deposit' | 'cash_write_off';

/** Money returned: a refund moves the amount back from the merchant to the customer, never with a fee. */
export type ReturnKind = 'refund';

/** What a transfer is for: its journal entry's kind, and for a fee use case the fee rule. */
export type TransferUseCase = FeeUseCase | CashMovementKind | ReturnKind;

/**
 * One balanced movement: `amount` leaves `debitOwner`; the fee of `useCase` goes to the platform.
 * feeMode `deducted`: the payee gets amount - fee (payments, cash, settlements).
 * feeMode `added`: the payer pays amount + fee and the payee gets amount (supplier payments).
 * feeMode `none`: the payee gets the amount, no fee whatever the schedule (required for cash movements).
 * `operationId` makes the transfer idempotent: the same id always answers the first outcome.
 */
export interface ExecuteTransfer {
  operationId: string;
  reference: string;
  useCase: TransferUseCase;
  feeMode: 'deducted' | 'added' | 'none';
  debitOwner: string;
  creditOwner: string;
  amount: number;
  currency: Currency;
}

export type TransferOutcome =
  | { status: 'completed'; entryId: string; feeAmount: number; netAmount: number; debitedAmount: number; createdAt: string }
  | { status: 'rejected'; reason: 'insufficient_balance' };

/** The fee the schedule would charge for a use case (shown before a payer approves). */
export interface FeeQuoteRequest {
  useCase: FeeUseCase;
  feeMode: 'deducted' | 'added';
  amount: number;
  currency: Currency;
}

export interface FeeQuote {
  feeAmount: number;
  /** What leaves the payer: amount (fee deducted) or amount + fee (fee added). */
  debitedAmount: number;
}

/** Entries of one reference, or of one account over a period; oldest first. */
export type ListEntries =
  | { reference: string }
  | { account: string; from?: string; to?: string; limit: number; startingAfter?: string };

export interface ListLedgerAccounts {
  kind?: string;
  currency?: string;
  limit: number;
  startingAfter?: string;
}

export interface StatementRequest {
  account: string;
  from: string;
  to: string;
  limit: number;
  startingAfter?: string;
}

export interface Period {
  from: string;
  to: string;
}

/** A connection's movements, newest first (the gateway has checked that the connection is the caller's). */
export interface ListBalanceTransactions {
  owner: string;
  limit: number;
  startingAfter?: string;
  source?: string;
  createdGte?: string;
  createdLt?: string;
}

// ---- payments ----
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

/** Sent by the clock owner after the service clock moved: apply every deadline now passed. */
export interface ApplyDeadlines {
  clockOffsetMs: number;
}

export interface DeadlinesApplied {
  applied: number;
}

/**
 * A page of one of an integrator's lists: newest first, `startingAfter` an id of the list, equality
 * filters by name, and `created_at` in [createdGte, createdLt) (ISO times, validated by the gateway).
 */
export interface ListObjects<F extends string> {
  integratorId: string;
  limit: number;
  startingAfter?: string;
  filters: Partial<Record<F, string>>;
  createdGte?: string;
  createdLt?: string;
}

// ---- webhooks ----
export interface ListPage {
  integratorId: string;
  limit: number;
  startingAfter?: string;
}

export interface CreateWebhookEndpoint {
  endpointId: string;
  integratorId: string;
  url: string;
  enabledEvents: string[];
}

export interface UpdateWebhookEndpoint {
  integratorId: string;
  id: string;
  url?: string;
  enabledEvents?: string[];
  status?: 'enabled' | 'disabled';
}

export interface ListEndpointDeliveries {
  integratorId: string;
  id: string;
  limit: number;
  startingAfter?: string;
  status?: 'pending' | 'succeeded' | 'failed';
}

export interface RecoverDeliveries {
  integratorId: string;
  id: string;
  /** ISO time: failed deliveries of events created at or after it are sent again. */
  since: string;
}

export interface IntegratorObjectRef {
  integratorId: string;
  id: string;
}

/** Each app's topics; the cash, supplier-payments and collections apps keep theirs in their own file. */
export interface RequestTopics extends CashTopics, SupplierPaymentsTopics, CollectionsTopics, ReconciliationTopics, OperationsTopics {
  'ledger.open-account': { request: OpenAccount; reply: BalanceResource };
  'ledger.get-balance': { request: GetBalance; reply: BalanceResource };
  'ledger.topup': { request: CreateTopup; reply: TopupResource };
  'ledger.transfer': { request: ExecuteTransfer; reply: TransferOutcome };
  'ledger.entries': { request: ListEntries; reply: ListResource<JournalEntryResource> };
  'ledger.trial-balance': { request: { asOf?: string }; reply: TrialBalanceResource };
  'ledger.accounts.list': { request: ListLedgerAccounts; reply: ListResource<LedgerAccountResource> };
  'ledger.statement': { request: StatementRequest; reply: StatementResource };
  'ledger.fee-revenue': { request: Period; reply: FeeRevenueResource };
  /** The cash custody balances per currency (the collections behind them come from the collections app). */
  'ledger.cash-custody': { request: Record<string, never>; reply: Omit<CashInTransitResource, 'collections'> };
  'ledger.fee-quote': { request: FeeQuoteRequest; reply: FeeQuote };
  'ledger.balance-transactions.list': { request: ListBalanceTransactions; reply: ListResource<BalanceTransactionResource> };
  /** Any connection's movement by id: the gateway answers 404 unless its connection is the caller's. */
  'ledger.balance-transactions.retrieve': { request: { id: string }; reply: BalanceTransactionResource };

  'payments.create': { request: CreatePaymentRequest; reply: PaymentResource };
  'payments.retrieve': { request: PaymentRef; reply: PaymentResource };
  'payments.cancel': { request: PaymentRef; reply: PaymentResource };
  'payments.authorize': { request: AuthorizePaymentRequest; reply: PaymentResource };
  'payments.decline': { request: PaymentRef; reply: PaymentResource };
  'payments.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'payments.list': { request: ListObjects<'order_reference' | 'status' | 'merchant_connection'>; reply: ListResource<PaymentResource> };
  'payments.refunds.create': { request: CreateRefund; reply: RefundResource };
  'payments.refunds.retrieve': { request: IntegratorObjectRef; reply: RefundResource };
  'payments.refunds.list': { request: ListObjects<'payment'>; reply: ListResource<RefundResource> };

  /** Recording is idempotent by event id: at-least-once publishers may repeat it. */
  'events.record': { request: IntegrationEvent; reply: { recorded: boolean } };
  'webhooks.endpoints.create': { request: CreateWebhookEndpoint; reply: WebhookEndpointResource };
  'webhooks.endpoints.list': { request: ListPage; reply: ListResource<WebhookEndpointResource> };
  'webhooks.endpoints.retrieve': { request: IntegratorObjectRef; reply: WebhookEndpointResource };
  'webhooks.endpoints.delete': { request: IntegratorObjectRef; reply: { id: string; object: 'webhook_endpoint'; deleted: true } };
  'webhooks.endpoints.update': { request: UpdateWebhookEndpoint; reply: WebhookEndpointResource };
  'webhooks.endpoints.rotate-secret': { request: IntegratorObjectRef; reply: WebhookEndpointResource };
  'webhooks.endpoints.deliveries': { request: ListEndpointDeliveries; reply: ListResource<EndpointDeliveryResource> };
  'webhooks.endpoints.recover': { request: RecoverDeliveries; reply: { object: 'recovery'; endpoint: string; redelivered: number } };
  'webhooks.events.list': { request: ListObjects<'type' | 'object_id'>; reply: ListResource<EventResource> };
  'webhooks.events.retrieve': { request: IntegratorObjectRef; reply: EventResource };
  'webhooks.events.redeliver': { request: IntegratorObjectRef; reply: EventResource };
  'webhooks.events.deliveries': { request: IntegratorObjectRef; reply: ListResource<DeliveryResource> };
  'webhooks.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}
export type RequestTopic = keyof RequestTopics;

/** Every app that holds deadlines answers this topic family; the clock owner calls each in turn. */
/** In this order: the apps' expiries emit events that the webhooks app then delivers in the same advance. */
export const DEADLINE_TOPICS = [
  'payments.apply-deadlines',
  'cash.apply-deadlines',
  'supplier-payments.apply-deadlines',
  'collections.apply-deadlines',
  'webhooks.apply-deadlines',
] as const satisfies readonly RequestTopic[];

/** The apps of the platform; each request topic is served by exactly one of them. */
export type AppName = 'gateway' | 'payments' | 'ledger' | 'webhooks' | 'cash' | 'supplier-payments' | 'collections';

const owned = <A extends AppName, T extends RequestTopic>(app: A, topics: readonly T[]) => Object.fromEntries(topics.map((t) => [t, app])) as Record<T, A>;

export const REQUEST_TOPIC_OWNER: { readonly [T in RequestTopic]: AppName } = {
  ...owned('cash', CASH_TOPICS),
  ...owned('supplier-payments', SUPPLIER_PAYMENTS_TOPICS),
  ...owned('collections', COLLECTIONS_TOPICS),
  ...owned('payments', operationsTopicsOf('payments')),
  ...owned('cash', operationsTopicsOf('cash')),
  ...owned('supplier-payments', operationsTopicsOf('supplier-payments')),
  ...owned('collections', operationsTopicsOf('collections')),
  ...owned('webhooks', WEBHOOKS_OPERATIONS_TOPICS),
  'payments.expected-movements': 'payments',
  'cash.expected-movements': 'cash',
  'supplier-payments.expected-movements': 'supplier-payments',
  'collections.expected-movements': 'collections',
  'ledger.movements': 'ledger',
  'ledger.open-account': 'ledger',
  'ledger.get-balance': 'ledger',
  'ledger.topup': 'ledger',
  'ledger.transfer': 'ledger',
  'ledger.entries': 'ledger',
  'ledger.trial-balance': 'ledger',
  'ledger.accounts.list': 'ledger',
  'ledger.statement': 'ledger',
  'ledger.fee-revenue': 'ledger',
  'ledger.cash-custody': 'ledger',
  'ledger.fee-quote': 'ledger',
  'ledger.balance-transactions.list': 'ledger',
  'ledger.balance-transactions.retrieve': 'ledger',
  'payments.create': 'payments',
  'payments.retrieve': 'payments',
  'payments.cancel': 'payments',
  'payments.authorize': 'payments',
  'payments.decline': 'payments',
  'payments.apply-deadlines': 'payments',
  'payments.list': 'payments',
  'payments.refunds.create': 'payments',
  'payments.refunds.retrieve': 'payments',
  'payments.refunds.list': 'payments',
  'events.record': 'webhooks',
  'webhooks.endpoints.create': 'webhooks',
  'webhooks.endpoints.list': 'webhooks',
  'webhooks.endpoints.retrieve': 'webhooks',
  'webhooks.endpoints.delete': 'webhooks',
  'webhooks.endpoints.update': 'webhooks',
  'webhooks.endpoints.rotate-secret': 'webhooks',
  'webhooks.endpoints.deliveries': 'webhooks',
  'webhooks.endpoints.recover': 'webhooks',
  'webhooks.events.list': 'webhooks',
  'webhooks.events.retrieve': 'webhooks',
  'webhooks.events.redeliver': 'webhooks',
  'webhooks.events.deliveries': 'webhooks',
  'webhooks.apply-deadlines': 'webhooks',
};

export const REQUEST_TOPICS = Object.keys(REQUEST_TOPIC_OWNER) as RequestTopic[];
