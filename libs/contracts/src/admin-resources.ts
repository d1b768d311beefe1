import { SUBSCRIBING_APPS } from './operations';
import { ApiKeyResource, id, IntegratorResource } from './resources';
import { array, boolean, extend, integer, listOf, literal, named, nullable, object, oneOfValues, schemaOf, string, time, type Schema, type Static } from './schema';

/** What the admin API (/admin/v1) answers beyond the resources of /v1, each declared once. */

const secret = (prefix: string) => string({ pattern: `^${prefix}`, description: 'The secret, shown only in this answer: store it now.' });

/** An integrator with its first API key (the secret is shown only here). */
export const CreatedIntegratorResource = extend(IntegratorResource, { api_key: secret('sk_'), api_key_id: id('key_') }, { title: 'CreatedIntegrator' });
export type CreatedIntegratorResource = Static<typeof CreatedIntegratorResource>;

export const CreatedApiKeyResource = named(
  'CreatedApiKey',
  object({ id: id('key_'), object: literal('api_key'), integrator: id('int_'), scopes: array(literal('*'), { description: 'Every /v1 route.' }), api_key: secret('sk_'), status: literal('active') }),
);
export type CreatedApiKeyResource = Static<typeof CreatedApiKeyResource>;

export const CreatedFinanceKeyResource = named(
  'CreatedFinanceKey',
  object({ id: id('key_'), object: literal('api_key'), role: literal('finance'), name: string(), api_key: secret('fk_'), status: literal('active') }),
);
export type CreatedFinanceKeyResource = Static<typeof CreatedFinanceKeyResource>;

/** The API key object (contract section 16) as the admin API revokes it: with its integrator and the revocation's time. */
export const RevokedApiKeyResource = extend(
  ApiKeyResource,
  { integrator: nullable(id('int_', 'null for a finance key.')), revoked_at: time() },
  { title: 'RevokedApiKey' },
);
export type RevokedApiKeyResource = Static<typeof RevokedApiKeyResource>;

/** A finance key as the admin API revokes it: its own shape (a role, no scopes, no integrator), as it was created. */
export const RevokedFinanceKeyResource = named(
  'RevokedFinanceKey',
  object({ id: id('key_'), object: literal('api_key'), role: literal('finance'), name: nullable(string()), redacted: nullable(string()), status: literal('revoked'), created_at: time(), last_used_at: nullable(time()), revoked_at: time() }),
);
export type RevokedFinanceKeyResource = Static<typeof RevokedFinanceKeyResource>;

/** What `POST /admin/v1/api_keys/{id}/revoke` answers: an integrator's key or a finance key, each in its shape. */
export const RevokedKeyResource = named('RevokedKey', schemaOf<RevokedApiKeyResource | RevokedFinanceKeyResource>({ anyOf: [RevokedApiKeyResource, RevokedFinanceKeyResource] }));
export type RevokedKeyResource = RevokedApiKeyResource | RevokedFinanceKeyResource;

export const BusinessUserResource = named(
  'BusinessUser',
  object({ id: id('usr_'), object: literal('business_user'), business: id('conn_'), name: string(), login: string(), created_at: time() }),
);
export type BusinessUserResource = Static<typeof BusinessUserResource>;

export const AGENT_ROLES = ['cashier', 'carrier'] as const;

export const AgentResource = named(
  'Agent',
  object({ id: id('agt_'), object: literal('agent'), cash_point: id('cp_'), role: oneOfValues(AGENT_ROLES), name: string(), login: string(), created_at: time() }),
);
export type AgentResource = Static<typeof AgentResource>;

// ---- the operator's view (/admin/v1/operations) ----
const subscribingApp = oneOfValues(SUBSCRIBING_APPS);

export const OperationsAppErrorResource = named(
  'OperationsAppError',
  object({ app: subscribingApp, code: string(), message: string() }, { description: 'An app that did not answer (or failed to): the others’ answers are still given.' }),
);
export type OperationsAppErrorResource = Static<typeof OperationsAppErrorResource>;

/** A list gathered from every app that keeps catch-up subscriptions, with the apps that did not answer. */
export const operationsListOf = <T>(item: Schema<T>, name: string) => extend(listOf(item), { errors: array(OperationsAppErrorResource) }, { title: name });

export const SubscriptionResource = named(
  'Subscription',
  object({
    id: string({ description: 'Its app, a dot, its name: `payments.payment-views`.' }),
    object: literal('subscription'),
    app: subscribingApp,
    checkpoint: nullable(string({ description: 'The last committed commit position (a decimal string), null before the first batch.' })),
    checkpoint_updated_at: nullable(time()),
    lag_seconds: integer({ minimum: 0, description: 'Seconds since it last found nothing more to handle (0 when caught up).' }),
    parked_events: integer({ minimum: 0 }),
    running: boolean(),
  }),
);
export type SubscriptionResource = Static<typeof SubscriptionResource>;

export const ParkedEventResource = named(
  'ParkedEvent',
  object({ object: literal('parked_event'), subscription: string(), event: string(), stream: string(), type: string(), error: string(), parked_at: time() }),
);
export type ParkedEventResource = Static<typeof ParkedEventResource>;

export const ParkedEventReplayResource = named(
  'ParkedEventReplay',
  object({
    object: literal('parked_event_replay'),
    replayed: integer({ minimum: 0, description: 'Handled this time and no longer parked.' }),
    failed: array(object({ subscription: string(), event: string(), error: string() }), { description: 'Failed again: still parked, with the new error.' }),
    errors: array(OperationsAppErrorResource),
  }),
);
export type ParkedEventReplayResource = Static<typeof ParkedEventReplayResource>;

export const FailedDeliveryResource = named(
  'FailedDelivery',
  object({
    id: id('whd_'),
    object: literal('failed_delivery'),
    endpoint: id('we_'),
    integrator: id('int_'),
    event: id('evt_'),
    event_type: string(),
    status: oneOfValues(['failed', 'retrying'], { description: '`failed`: retries exhausted; `retrying`: failed at least once, another attempt scheduled.' }),
    attempts: integer({ minimum: 0 }),
    last_error: nullable(string()),
    last_attempt_at: nullable(time()),
  }),
);
export type FailedDeliveryResource = Static<typeof FailedDeliveryResource>;

export const RedeliveryResource = named('Redelivery', object({ object: literal('redelivery'), endpoint: nullable(id('we_')), redelivered: integer({ minimum: 0 }) }));
export type RedeliveryResource = Static<typeof RedeliveryResource>;

export const EndpointHealthResource = named(
  'EndpointHealth',
  object({
    id: id('we_'),
    object: literal('endpoint_health'),
    integrator: id('int_'),
    url: string({ format: 'uri' }),
    status: oneOfValues(['enabled', 'disabled']),
    failing_since: nullable(time('When its current run of failures began (service clock).')),
    flagged: boolean({ description: 'Failing for more than an hour.' }),
  }),
);
export type EndpointHealthResource = Static<typeof EndpointHealthResource>;

// ---- reconciliation ----
export const ReconciliationDifferenceResource = named(
  'ReconciliationDifference',
  object({
    object_id: nullable(string()),
    reference: string(),
    kind: oneOfValues(['missing_entry', 'unexpected_entry', 'amount_mismatch']),
    account: string(),
    expected: integer(),
    found: integer(),
    message: string(),
  }),
);
export type ReconciliationDifferenceResource = Static<typeof ReconciliationDifferenceResource>;

export const BrokenChainResource = named(
  'BrokenChain',
  object(
    { kind: literal('broken_chain'), sequence: integer({ minimum: 1 }), message: string() },
    { description: 'The ledger’s hash chain does not hold from `sequence` on: an entry there was changed, removed or moved.' },
  ),
);
export type BrokenChainResource = Static<typeof BrokenChainResource>;

export const ReconciliationResource = named(
  'Reconciliation',
  object({
    object: literal('reconciliation'),
    status: oneOfValues(['balanced', 'differences']),
    checked_objects: integer({ minimum: 0 }),
    differences: array(schemaOf<ReconciliationDifferenceResource | BrokenChainResource>({ oneOf: [ReconciliationDifferenceResource, BrokenChainResource] })),
  }),
);
export type ReconciliationResource = Static<typeof ReconciliationResource>;
