import { statusChangeEvents, type AggregateType } from '@pay/event-store';
import { paymentDecider, paymentStreamId, toPaymentResource, type Payment, type PaymentCommand, type PaymentEvent } from '@pay/payments-domain';
import { PAYMENT_EVENT_PREFIX } from './payment-projection';

/**
 * The integration event for a payment's status change, or null when the domain event is not one
 * (creation, the start of an authorization, a refund's reservation and settlement on the payment).
 */
export const toIntegrationEvent = statusChangeEvents<PaymentEvent, Payment>(paymentStreamId, toPaymentResource, {
  PaymentCreated: null,
  PaymentAuthorizationStarted: null,
  PaymentSucceeded: { type: 'payment.succeeded', at: (event) => event.succeededAt },
  PaymentDeclined: { type: 'payment.declined', at: (event) => event.declinedAt },
  PaymentCanceled: { type: 'payment.canceled', at: (event) => event.canceledAt },
  PaymentExpired: { type: 'payment.expired', at: (event) => event.expiredAt },
  PaymentRefundReserved: null,
  PaymentRefundSettled: null,
});

/** The payment aggregate as the runtime knows it (repository, relay). */
export const paymentAggregate: AggregateType<PaymentCommand, PaymentEvent, Payment> = {
  name: 'payment',
  decider: paymentDecider,
  streamId: paymentStreamId,
  eventTypePrefix: PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'PaymentCreated' || event.type === 'PaymentAuthorizationStarted',
  expire: (paymentId, now) => ({ type: 'ExpirePayment', paymentId, now }),
};
