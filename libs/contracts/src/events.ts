import { createHash } from 'node:crypto';

/**
 * Integration events: what integrators receive (contract section 6). Every status reached after
 * creation is an event type; the six of the specification carry the payloads it lists.
 */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.declined',
  'payment.canceled',
  'payment.expired',
  'cash_payment.succeeded',
  'cash_payment.expired',
  'cash_payment.canceled',
  'supplier_payment.succeeded',
  'supplier_payment.declined',
  'supplier_payment.rejected',
  'supplier_payment.canceled',
  'supplier_payment.expired',
  'collection.collected',
  'collection.deposit_under_review',
  'settlement.completed',
  'refund.succeeded',
  'refund.failed',
  'payout.in_transit',
  'payout.paid',
  'payout.failed',
  'payout.canceled',
  // Not a status change: emitted once, the first time a deposit is seen past due_at unvalidated.
  'collection.deposit_overdue',
  // Not an object's status change: an endpoint the service disabled after failing for 5 days.
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: unknown): value is EventType => typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);

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

/** The event delivered and listed: `{ id, object: "event", type, created_at, data }`. */
export interface EventResource {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

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
