import { integrationEventId, type EventType, type IntegrationEvent } from '@pay/contracts';
import { paymentStreamId, toPaymentResource, type Payment, type PaymentEvent } from '@pay/payments-domain';

const STATUS_EVENT_TYPES: Partial<Record<PaymentEvent['type'], EventType>> = {
  PaymentSucceeded: 'payment.succeeded',
  PaymentDeclined: 'payment.declined',
  PaymentCanceled: 'payment.canceled',
  PaymentExpired: 'payment.expired',
};

const changedAt = (event: PaymentEvent): string | undefined => {
  switch (event.type) {
    case 'PaymentSucceeded':
      return event.succeededAt;
    case 'PaymentDeclined':
      return event.declinedAt;
    case 'PaymentCanceled':
      return event.canceledAt;
    case 'PaymentExpired':
      return event.expiredAt;
    default:
      return undefined;
  }
};

/**
 * The integration event for a payment's status change, or null when the domain event is not one
 * (creation, the start of an authorization). `stateAfter` is the payment once `event` is applied;
 * `revision` is the event's place in the stream, which makes the event id stable and orders versions.
 */
export function toIntegrationEvent(event: PaymentEvent, stateAfter: Payment, revision: bigint): IntegrationEvent | null {
  const type = STATUS_EVENT_TYPES[event.type];
  const createdAt = changedAt(event);
  if (!type || !createdAt || stateAfter.status === 'none') return null;
  const resource = toPaymentResource(stateAfter);
  return {
    id: integrationEventId(paymentStreamId(resource.id), revision),
    type,
    createdAt,
    integratorId: stateAfter.terms.integratorId,
    objectId: resource.id,
    data: { ...resource, object_version: Number(revision) + 1 },
  };
}
