import { CURRENCIES } from '@pay/kernel';
import { EVENT_TYPES } from './event-types';
import { array, boolean, integer, type listOf, literal, named, nullable, object, oneOfValues, optional, schemaOf, string, time, type Static } from './schema';

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

export const BankAccountResource = named(
  'BankAccount',
  object(
    {
      id: id('ba_'),
      object: literal('bank_account'),
      connection: id('conn_'),
      account_holder: string(),
      country: string({ pattern: '^[A-Z]{2}$', description: 'The IBAN’s country (ISO 3166-1 alpha-2).' }),
      iban_last4: string({ minLength: 4, maxLength: 4 }),
      currency: currency('The connection’s currency, which the IBAN’s country uses.'),
      created_at: time(),
      iban: optional(string({ description: 'The full IBAN, without spaces: only in the answer to the create.' })),
    },
    { description: 'A bank account registered for a connection’s payouts.' },
  ),
);
export type BankAccountResource = Static<typeof BankAccountResource>;

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PayoutResource = named(
  'Payout',
  object(
    {
      id: id('po_'),
      object: literal('payout'),
      connection: id('conn_'),
      bank_account: id('ba_'),
      amount: amount(),
      currency: currency(),
      description: nullable(string()),
      fee_amount: schemaOf<0>({ type: 'integer', const: 0, description: 'A payout carries no fee.' }),
      status: oneOfValues(PAYOUT_STATUSES, { description: '`pending` → `in_transit` (in a batch) → `paid` or `failed`; `pending` → `canceled`.' }),
      failure_reason: nullable(oneOfValues(['returned_by_bank'])),
      failure_code: nullable(string({ description: 'The bank’s return reason code (`RtrInf/Rsn/Cd`, e.g. `AC04`).' })),
      batch: nullable(id('pob_', 'The payout batch that sent it, once `in_transit`.')),
      created_at: time(),
      paid_at: nullable(time('The booking date of the bank statement entry that paid it.')),
    },
    { description: 'Money out of a connection’s available balance to one of its bank accounts.' },
  ),
);
export type PayoutResource = Static<typeof PayoutResource>;

export const PayoutBatchResource = named(
  'PayoutBatch',
  object(
    {
      object: literal('payout_batch'),
      id: id('pob_'),
      currency: currency(),
      count: integer({ minimum: 0 }),
      total_amount: amount(),
      created_at: time(),
    },
    { description: 'Every payout that was `pending` in one currency, now `in_transit`; its file is the pain.001 credit transfer initiation.' },
  ),
);
export type PayoutBatchResource = Static<typeof PayoutBatchResource>;

export const UnmatchedStatementEntry = named(
  'UnmatchedStatementEntry',
  object(
    { end_to_end_id: nullable(string()), amount: nullable(amount()), currency: nullable(string()), reason: string({ description: 'Why the entry changed nothing.' }) },
    { description: 'A statement entry that matched no `in_transit` payout.' },
  ),
);
export type UnmatchedStatementEntry = Static<typeof UnmatchedStatementEntry>;

export const BankStatementImportResource = named(
  'BankStatementImport',
  object(
    {
      object: literal('bank_statement_import'),
      id: string(),
      statement_id: string({ description: 'The statement’s `Stmt/Id`.' }),
      entries: integer({ minimum: 0 }),
      paid: integer({ minimum: 0 }),
      failed: integer({ minimum: 0 }),
      unmatched: array(UnmatchedStatementEntry),
      duplicate: boolean({ description: 'The statement was imported before: nothing was applied.' }),
    },
    { description: 'The result of importing a camt.053 bank statement.' },
  ),
);
export type BankStatementImportResource = Static<typeof BankStatementImportResource>;

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

export const BALANCE_TRANSACTION_TYPES = ['payment', 'cash_payment', 'supplier_payment', 'settlement', 'refund', 'topup', 'payout', 'payout_reversal', 'adjustment'] as const;
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

export const DeliveryAttemptResource = named(
  'DeliveryAttempt',
  object({ attempted_at: time(), status_code: nullable(integer()), latency_ms: integer({ minimum: 0 }), error: nullable(string()) }),
);
export type DeliveryAttemptResource = Static<typeof DeliveryAttemptResource>;

/**
 * A webhook_delivery, one shape wherever it is answered (an endpoint's deliveries, an event's): the
 * contract's fields, then `created_at` and every attempt in `attempt_history`.
 */
export const EndpointDeliveryResource = named(
  'WebhookDelivery',
  object(
    {
      id: id('whd_'),
      object: literal('webhook_delivery'),
      event: id('evt_'),
      endpoint: id('we_'),
      status: oneOfValues(DELIVERY_STATUSES),
      attempts: integer({ minimum: 0, description: 'How many attempts were made.' }),
      last_attempt_at: nullable(time()),
      next_attempt_at: nullable(time()),
      last_response_status: nullable(integer({ description: 'The HTTP status of the last attempt; null before any, or when it got no answer.' })),
      created_at: time(),
      attempt_history: array(DeliveryAttemptResource, { description: 'Every attempt, oldest first.' }),
    },
    { description: 'One delivery of an event to one endpoint.' },
  ),
);
export type EndpointDeliveryResource = Static<typeof EndpointDeliveryResource>;

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

// ---- API keys and the audit trail (/v1/api_keys, /v1/audit_events) ----
export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;

const apiKeyFields = {
  id: id('key_'),
  object: literal('api_key'),
  name: nullable(string()),
  scopes: array(string({ description: '`*` (every /v1 route) or `<resource>:read` / `<resource>:write`.' })),
  redacted: nullable(string({ description: 'The secret’s first 3 and last 4 characters.' })),
  status: oneOfValues(API_KEY_STATUSES),
  created_at: time(),
  expires_at: nullable(time()),
  last_used_at: nullable(time('At most 60 s behind the key’s last authenticated request.')),
};

export const ApiKeyResource = named('ApiKey', object(apiKeyFields, { description: 'An API key of the integrator, without its secret.' }));
export type ApiKeyResource = Static<typeof ApiKeyResource>;

export const ApiKeyWithSecretResource = named(
  'ApiKeyWithSecret',
  object(
    { ...apiKeyFields, api_key: string({ pattern: '^(sk_|rk_)', description: 'The secret, shown only in this answer: `sk_…` for `["*"]`, `rk_…` otherwise.' }) },
    { description: 'A new API key with its secret.' },
  ),
);
export type ApiKeyWithSecretResource = Static<typeof ApiKeyWithSecretResource>;

export const AUDIT_ACTOR_TYPES = ['api_key', 'admin', 'finance_key'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export const AuditEventResource = named(
  'AuditEvent',
  object(
    {
      id: id('aud_'),
      object: literal('audit_event'),
      action: string({ description: '`<object>.<verb>`, e.g. `api_key.created`, `payout.created`.' }),
      actor: object({ type: oneOfValues(AUDIT_ACTOR_TYPES), id: nullable(string({ description: 'The key’s id; null for the admin key.' })) }),
      integrator: nullable(id('int_')),
      target: object({ object: string(), id: string() }),
      request_id: nullable(string({ description: 'The `Request-Id` of the request that did it.' })),
      created_at: time(),
    },
    { description: 'A change made through the API: who did what to which object.' },
  ),
);
export type AuditEventResource = Static<typeof AuditEventResource>;

// ---- the tamper-evident ledger (/admin/v1/ledger/chain) ----
const sha256Hex = (description: string) => string({ pattern: '^[0-9a-f]{64}$', description });

export const ChainEntryResource = named(
  'ChainEntry',
  object(
    {
      sequence: integer({ minimum: 1 }),
      id: string(),
      reference: string(),
      created_at: time(),
      postings: array(PostingResource),
      prev_hash: sha256Hex('The previous entry’s hash (64 zeros for sequence 1).'),
      hash: sha256Hex('SHA-256 of `prev_hash + "\\n" +` the RFC 8785 JSON of `{sequence, id, reference, created_at, postings}`.'),
    },
    { description: 'A ledger entry in the hash chain.' },
  ),
);
export type ChainEntryResource = Static<typeof ChainEntryResource>;

export const LedgerHeadResource = named(
  'LedgerHead',
  object(
    {
      object: literal('ledger_head'),
      sequence: integer({ minimum: 0 }),
      hash: string(),
      signed_at: time(),
      key_id: string(),
      signature: string({ description: 'Base64 Ed25519 over `sequence + "." + hash + "." + signed_at`.' }),
    },
    { description: 'The chain’s head, signed.' },
  ),
);
export type LedgerHeadResource = Static<typeof LedgerHeadResource>;

export const SigningKeyResource = named(
  'SigningKey',
  object({ key_id: string(), algorithm: literal('Ed25519'), public_key: string({ description: 'PEM SPKI.' }) }, { description: 'A key that signs the chain’s head.' }),
);
export type SigningKeyResource = Static<typeof SigningKeyResource>;

export const ChainVerificationResource = named(
  'ChainVerification',
  object({
    object: literal('chain_verification'),
    status: oneOfValues(['valid', 'broken']),
    entries: integer({ minimum: 0, description: 'Entries that hold, from sequence 1 (all of them when valid).' }),
    first_broken_sequence: nullable(integer({ minimum: 1 })),
  }),
);
export type ChainVerificationResource = Static<typeof ChainVerificationResource>;
