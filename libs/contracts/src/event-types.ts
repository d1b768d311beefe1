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
