import { createHash } from 'node:crypto';
import { EVENT_TYPES, type EventType } from './event-types';
import { CashPaymentResource } from './cash';
import { CollectionResource } from './collections';
import { id, PaymentResource, PayoutResource, RefundResource, WebhookEndpointResource } from './resources';
import { extend, integer, literal, named, nameOf, object, oneOfValues, schemaOf, time, type Schema, type Static } from './schema';
import { SupplierPaymentResource } from './supplier-payments';

export { EVENT_TYPES, isEventType, type EventType } from './event-types';

/** An event as the owning app records it with the webhooks app. */
export interface IntegrationEvent {
  /** evt_…, derived from the domain event's place in its stream: a replay yields the same id. */
  id: string;
  type: EventType;
  /** When the state change happened, on the service clock. */
  createdAt: string;
  integratorId: string;
  objectId: string;
  /** The resource as of this change, with `object_version` (the change's position in the object's history). */
  data: Record<string, unknown> & { object_version: number };
}

/** The object an event type is about: its `data` is that resource as of the change, with `object_version`. */
const EVENT_FAMILIES = [
  { name: 'PaymentEvent', prefix: 'payment.', resource: PaymentResource },
  { name: 'CashPaymentEvent', prefix: 'cash_payment.', resource: CashPaymentResource },
  { name: 'SupplierPaymentEvent', prefix: 'supplier_payment.', resource: SupplierPaymentResource },
  { name: 'CollectionEvent', prefix: 'collection.', resource: CollectionResource },
  { name: 'SettlementEvent', prefix: 'settlement.', resource: CollectionResource },
  { name: 'RefundEvent', prefix: 'refund.', resource: RefundResource },
  { name: 'PayoutEvent', prefix: 'payout.', resource: PayoutResource },
  { name: 'WebhookEndpointEvent', prefix: 'webhook_endpoint.', resource: WebhookEndpointResource },
] as const;

const objectVersion = integer({ minimum: 1, description: 'The change’s position in the object’s history: a receiver keeps the highest it has seen.' });

/** The event of each family of types, its `data` the family's resource (the webhooks section and the events list). */
export const EVENT_SCHEMAS = EVENT_FAMILIES.map(({ name, prefix, resource }) => {
  const types = EVENT_TYPES.filter((type) => type.startsWith(prefix));
  const data = extend(resource as Schema<object>, { object_version: objectVersion }, { description: `The ${nameOf(resource)} as of this change.` });
  return {
    types,
    schema: named(
      name,
      object(
        { id: id('evt_'), object: literal('event'), type: oneOfValues(types), created_at: time('When the change happened, on the service clock.'), data },
        { description: `An event about a ${nameOf(resource)}: ${types.map((t) => `\`${t}\``).join(', ')}.` },
      ),
    ),
  };
});

/** The event delivered and listed: `{ id, object: "event", type, created_at, data }`, one of the families above. */
export const EventResource = named('Event', schemaOf<{ id: string; object: 'event'; type: EventType; created_at: string; data: Record<string, unknown> }>({ oneOf: EVENT_SCHEMAS.map((e) => e.schema) }));
export type EventResource = Static<typeof EventResource>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A stable event id for the domain event at `revision` of `streamId` (stream revisions never change):
 * `evt_` and 24 base62 characters of its SHA-256. Recording the same change twice gives the same id.
 */
export const integrationEventId = (streamId: string, revision: bigint | number): string => {
  const digest = createHash('sha256').update(`${streamId}@${revision.toString()}`).digest();
  let id = '';
  for (let i = 0; id.length < 24; i++) id += BASE62[digest[i % digest.length]! % 62];
  return `evt_${id}`;
};
