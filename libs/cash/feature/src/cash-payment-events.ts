import {
  CASH_PAYMENT_EVENT_PREFIX,
  cashPaymentDecider,
  cashPaymentStreamId,
  toCashPaymentResource,
  type CashPayment,
  type CashPaymentCommand,
  type CashPaymentEvent,
} from '@pay/cash-domain';
import { statusChangeEvents, type AggregateType } from '@pay/event-store';

/**
 * The integration event for a cash payment's status change, or null when the domain event is not one
 * (creation, the start of a validation).
 */
export const toIntegrationEvent = statusChangeEvents<CashPaymentEvent, CashPayment>(cashPaymentStreamId, toCashPaymentResource, {
  CashPaymentCreated: null,
  CashPaymentValidationStarted: null,
  CashPaymentSucceeded: { type: 'cash_payment.succeeded', at: (event) => event.succeededAt },
  CashPaymentCanceled: { type: 'cash_payment.canceled', at: (event) => event.canceledAt },
  CashPaymentExpired: { type: 'cash_payment.expired', at: (event) => event.expiredAt },
});

/** The cash payment aggregate as the runtime knows it (repository, relay). */
export const cashPaymentAggregate: AggregateType<CashPaymentCommand, CashPaymentEvent, CashPayment> = {
  name: 'cash payment',
  decider: cashPaymentDecider,
  streamId: cashPaymentStreamId,
  eventTypePrefix: CASH_PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'CashPaymentCreated' || event.type === 'CashPaymentValidationStarted',
  expire: (cashPaymentId, now) => ({ type: 'ExpireCashPayment', cashPaymentId, now }),
};
