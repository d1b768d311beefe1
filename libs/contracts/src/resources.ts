import { CURRENCIES } from '@pay/kernel';
import { EVENT_TYPES } from './event-types';
import { array, boolean, integer, type listOf, literal, named, nullable, object, oneOfValues, optional, string, time, type Static } from './schema';

/**
 * Resource shapes as the API returns them (specification, "Resources and their fields"), each
 * declared once as a JSON Schema (`./schema`): the type is the schema's `Static`, the OpenAPI
 * document publishes the schema, the e2e suites validate every answer against it.
 */

export const currency = (description?: string) => oneOfValues(CURRENCIES, description ? { description } : {});
/** An id of one kind, e.g. `id('pay_')`. */
export const id = (prefix: string, description?: string) => string({ pattern: `^${prefix}`, ...(description ? { description } : {}) });
export const amount = (description = 'Minor units of the currency.') => integer({ description });

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'declined', 'canceled', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const PAYMENT_DECLINE_REASONS = ['insufficient_balance', 'customer_declined'] as const;
export type PaymentDeclineReason = (typeof PAYMENT_DECLINE_REASONS)[number];

export const PaymentResource = named(
  'Payment',
  object(
    {
      id: id('pay_'),
      object: literal('payment'),
      status: oneOfValues(PAYMENT_STATUSES),
      decline_reason: nullable(oneOfValues(PAYMENT_DECLINE_REASONS)),
      amount: amount(),
      currency: currency(),
      order_reference: string(),
      merchant_connection: id('conn_'),
      authorization_url: nullable(string({ format: 'uri', description: 'The hosted page where the customer authorizes the payment, while it is pending.' })),
      return_url: string({ format: 'uri' }),
      fee_amount: nullable(amount('Set once the payment succeeded.')),
      net_amount: nullable(amount('amount - fee_amount, credited to the merchant.')),
      amount_refunded: amount('What succeeded refunds returned to the customer so far (0 until a refund).'),
      expires_at: time('The authorization deadline.'),
      succeeded_at: nullable(time()),
      created_at: time(),
    },
    { description: 'A Pay payment: the customer authorizes it on a hosted page, and the merchant is credited.' },
  ),
);
export type PaymentResource = Static<typeof PaymentResource>;

export const REFUND_STATUSES = ['succeeded', 'failed', 'pending'] as const;
export type RefundStatus = 'succeeded' | 'failed';

export const RefundResource = named(
  'Refund',
  object(
    {
      id: id('re_'),
      object: literal('refund'),
      payment: id('pay_'),
      amount: amount(),
      currency: currency(),
      reason: nullable(string()),
      status: oneOfValues(REFUND_STATUSES, { description: '`pending` only while its ledger step is under way: a create answers once it is decided.' }),
      failure_reason: nullable(oneOfValues(['insufficient_balance'])),
      created_at: time(),
    },
    { description: 'A refund of a succeeded payment, whole or in part, to the customer’s balance.' },
  ),
);
export type RefundResource = Static<typeof RefundResource>;

export const CONNECTION_KINDS = ['merchant', 'business', 'wholesaler'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export const IntegratorResource = named('Integrator', object({ id: id('int_'), object: literal('integrator'), name: string(), created_at: time() }));
export type IntegratorResource = Static<typeof IntegratorResource>;

export const ConnectionResource = named(
  'Connection',
  object({ id: id('conn_'), object: literal('connection'), integrator: id('int_'), kind: oneOfValues(CONNECTION_KINDS), name: string(), currency: currency(), created_at: time() }),
);
export type ConnectionResource = Static<typeof ConnectionResource>;

export const CustomerResource = named('Customer', object({ id: id('cus_'), object: literal('customer'), name: string(), phone: string(), currency: currency(), created_at: time() }));
export type CustomerResource = Static<typeof CustomerResource>;

export const BalanceResource = named(
  'Balance',
  object({ object: literal('balance'), owner: string({ description: 'The account owner: a `conn_`, `cus_` or `ben_` id.' }), currency: currency(), available: amount() }),
);
export type BalanceResource = Static<typeof BalanceResource>;

export const BALANCE_TRANSACTION_TYPES = ['payment', 'cash_payment', 'supplier_payment', 'settlement', 'refund', 'topup', 'adjustment'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

export const BalanceTransactionResource = named(
  'BalanceTransaction',
  object(
    {
      id: id('txn_'),
      object: literal('balance_transaction'),
      connection: id('conn_'),
      type: oneOfValues(BALANCE_TRANSACTION_TYPES),
      source: string({ description: 'The object that caused it (its journal entry’s reference).' }),
      amount: integer({ description: 'Signed change of `available`: positive for a credit, negative for a debit.' }),
      fee_amount: amount('Fee charged on this movement (0 when none).'),
      currency: currency(),
      balance_after: amount('`available` right after this movement.'),
      created_at: time(),
    },
    { description: 'One movement of one connection’s account.' },
  ),
);
export type BalanceTransactionResource = Static<typeof BalanceTransactionResource>;

export const TopupResource = named('Topup', object({ id: id('top_'), object: literal('topup'), account: string(), amount: amount(), currency: currency(), created_at: time() }));
export type TopupResource = Static<typeof TopupResource>;

const direction = oneOfValues(['debit', 'credit']);

export const PostingResource = named('Posting', object({ account: string(), direction, amount: amount(), currency: currency() }));
export type PostingResource = Static<typeof PostingResource>;

export const JournalEntryResource = named(
  'JournalEntry',
  object({ id: string(), object: literal('journal_entry'), reference: string(), kind: string(), created_at: time(), postings: array(PostingResource) }),
);
export type JournalEntryResource = Static<typeof JournalEntryResource>;

export const TrialBalanceResource = named(
  'TrialBalance',
  object({ object: literal('trial_balance'), currencies: array(object({ currency: currency(), total_debits: amount(), total_credits: amount() })) }),
);
export type TrialBalanceResource = Static<typeof TrialBalanceResource>;

/** The list envelope (section 5): `listOf(PaymentResource)` is its schema. */
export type ListResource<T> = Static<ReturnType<typeof listOf<T>>>;

export const ClockResource = named('Clock', object({ object: literal('clock'), now: time('The service clock.') }));
export type ClockResource = Static<typeof ClockResource>;

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

export const WebhookEndpointResource = named(
  'WebhookEndpoint',
  object({
    id: id('we_'),
    object: literal('webhook_endpoint'),
    url: string({ format: 'uri' }),
    enabled_events: array(oneOfValues(['*', ...EVENT_TYPES], { description: '`*` (every type) or an event type.' })),
    secret: optional(string({ pattern: '^whsec_', description: 'Only in the answers of create and rotate_secret: store it then.' })),
    status: oneOfValues(WEBHOOK_ENDPOINT_STATUSES),
    disabled_reason: nullable(string({ description: '`disabled_by_integrator`, or `failing_for_5_days` when the service disabled it.' })),
    created_at: time(),
  }),
);
export type WebhookEndpointResource = Static<typeof WebhookEndpointResource>;

export const DeletedWebhookEndpointResource = named('DeletedWebhookEndpoint', object({ id: id('we_'), object: literal('webhook_endpoint'), deleted: literal(true) }));
export type DeletedWebhookEndpointResource = Static<typeof DeletedWebhookEndpointResource>;

export const RecoveryResource = named('Recovery', object({ object: literal('recovery'), endpoint: id('we_'), redelivered: integer({ minimum: 0 }) }));
export type RecoveryResource = Static<typeof RecoveryResource>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

export const EndpointDeliveryResource = named(
  'EndpointDelivery',
  object(
    {
      id: id('whd_'),
      object: literal('webhook_delivery'),
      event: id('evt_'),
      endpoint: id('we_'),
      status: oneOfValues(DELIVERY_STATUSES),
      attempts: integer({ minimum: 0 }),
      last_attempt_at: nullable(time()),
      next_attempt_at: nullable(time()),
      last_response_status: nullable(integer()),
    },
    { description: 'One delivery of an event to one endpoint, as the endpoint’s deliveries list shows it.' },
  ),
);
export type EndpointDeliveryResource = Static<typeof EndpointDeliveryResource>;

export const DeliveryAttemptResource = named(
  'DeliveryAttempt',
  object({ attempted_at: time(), status_code: nullable(integer()), latency_ms: integer({ minimum: 0 }), error: nullable(string()) }),
);
export type DeliveryAttemptResource = Static<typeof DeliveryAttemptResource>;

export const DeliveryResource = named(
  'Delivery',
  object({
    id: id('whd_'),
    object: literal('webhook_delivery'),
    event: id('evt_'),
    webhook_endpoint: id('we_'),
    status: oneOfValues(DELIVERY_STATUSES),
    attempts: array(DeliveryAttemptResource),
    next_attempt_at: nullable(time()),
    created_at: time(),
  }),
);
export type DeliveryResource = Static<typeof DeliveryResource>;

// ---- finance (read-only ledger access) ----
export const LedgerAccountResource = named(
  'LedgerAccount',
  object({ object: literal('ledger_account'), id: string(), kind: string(), currency: currency(), balance: integer(), created_at: time() }),
);
export type LedgerAccountResource = Static<typeof LedgerAccountResource>;

export const StatementLineResource = named(
  'StatementLine',
  object({
    entry: string(),
    reference: string(),
    kind: string(),
    created_at: time(),
    direction,
    amount: amount(),
    balance_after: integer({ description: 'The running balance after this line.' }),
  }),
);
export type StatementLineResource = Static<typeof StatementLineResource>;

export const StatementResource = named(
  'Statement',
  object({
    object: literal('statement'),
    account: string(),
    currency: currency(),
    from: time(),
    to: time(),
    opening_balance: integer(),
    closing_balance: integer(),
    total_debits: amount(),
    total_credits: amount(),
    lines: array(StatementLineResource),
    has_more: boolean(),
  }),
);
export type StatementResource = Static<typeof StatementResource>;

export const FeeRevenueResource = named(
  'FeeRevenue',
  object({
    object: literal('fee_revenue'),
    from: time(),
    to: time(),
    currencies: array(
      object({
        currency: currency(),
        total: amount(),
        by_use_case: object({ payment: amount(), cash_payment: amount(), supplier_payment: amount(), settlement: amount() }),
      }),
    ),
  }),
);
export type FeeRevenueResource = Static<typeof FeeRevenueResource>;

export const CashInTransitResource = named(
  'CashInTransit',
  object({
    object: literal('cash_in_transit'),
    currencies: array(object({ currency: currency(), with_carriers: amount(), at_cash_points: amount() })),
    collections: array(
      object({
        id: id('col_'),
        amount: amount(),
        currency: currency(),
        status: string(),
        collected_at: nullable(time()),
        due_at: nullable(time()),
        overdue: boolean(),
        point: nullable(string()),
      }),
    ),
  }),
);
export type CashInTransitResource = Static<typeof CashInTransitResource>;
