import { type EventType, type IntegrationEvent } from '@pay/contracts';
import { statusChangeEvent, type AggregateType } from '@pay/event-store';
import { paymentDecider, paymentStreamId, toPaymentResource, type Payment, type PaymentCommand, type PaymentEvent } from '@pay/payments-domain';
import { PAYMENT_EVENT_PREFIX } from './payment-projection';

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
  return statusChangeEvent(paymentStreamId(resource.id), revision, { type, createdAt, integratorId: stateAfter.terms.integratorId, resource });
}

/** The payment aggregate as the runtime knows it (repository, relay). */
export const paymentAggregate: AggregateType<PaymentCommand, PaymentEvent, Payment> = {
  name: 'payment',
  decider: paymentDecider,
  streamId: paymentStreamId,
  eventTypePrefix: PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'PaymentCreated' || event.type === 'PaymentAuthorizationStarted',
};
