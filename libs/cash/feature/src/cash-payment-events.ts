import {
  CASH_PAYMENT_EVENT_PREFIX,
  cashPaymentDecider,
  cashPaymentStreamId,
  toCashPaymentResource,
  type CashPayment,
  type CashPaymentCommand,
  type CashPaymentEvent,
} from '@pay/cash-domain';
import { type EventType, type IntegrationEvent } from '@pay/contracts';
import { statusChangeEvent, type AggregateType } from '@pay/event-store';

const STATUS_EVENT_TYPES: Partial<Record<CashPaymentEvent['type'], EventType>> = {
  CashPaymentSucceeded: 'cash_payment.succeeded',
  CashPaymentCanceled: 'cash_payment.canceled',
  CashPaymentExpired: 'cash_payment.expired',
};

const changedAt = (event: CashPaymentEvent): string | undefined => {
  switch (event.type) {
    case 'CashPaymentSucceeded':
      return event.succeededAt;
    case 'CashPaymentCanceled':
      return event.canceledAt;
    case 'CashPaymentExpired':
      return event.expiredAt;
    default:
      return undefined;
  }
};

/**
 * The integration event for a cash payment's status change, or null when the domain event is not one
 * (creation, the start of a validation). `stateAfter` is the payment once `event` is applied;
 * `revision` is the event's place in the stream, which makes the event id stable and orders versions.
 */
export function toIntegrationEvent(event: CashPaymentEvent, stateAfter: CashPayment, revision: bigint): IntegrationEvent | null {
  const type = STATUS_EVENT_TYPES[event.type];
  const createdAt = changedAt(event);
  if (!type || !createdAt || stateAfter.status === 'none') return null;
  const resource = toCashPaymentResource(stateAfter);
  return statusChangeEvent(cashPaymentStreamId(resource.id), revision, { type, createdAt, integratorId: stateAfter.terms.integratorId, resource });
}

/** The cash payment aggregate as the runtime knows it (repository, relay). */
export const cashPaymentAggregate: AggregateType<CashPaymentCommand, CashPaymentEvent, CashPayment> = {
  name: 'cash payment',
  decider: cashPaymentDecider,
  streamId: cashPaymentStreamId,
  eventTypePrefix: CASH_PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'CashPaymentCreated' || event.type === 'CashPaymentValidationStarted',
};
