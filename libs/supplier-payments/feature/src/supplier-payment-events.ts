import { type EventType, type IntegrationEvent } from '@pay/contracts';
import { statusChangeEvent, type AggregateType } from '@pay/event-store';
import {
  SUPPLIER_PAYMENT_EVENT_PREFIX,
  supplierPaymentDecider,
  supplierPaymentStreamId,
  toSupplierPaymentResource,
  type SupplierPayment,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
} from '@pay/supplier-payments-domain';

/** The status changes after creation, each an event type, and when each happened. */
const statusChange = (event: SupplierPaymentEvent): { type: EventType; at: string } | null => {
  switch (event.type) {
    case 'SupplierPaymentSucceeded':
      return { type: 'supplier_payment.succeeded', at: event.succeededAt };
    case 'SupplierPaymentDeclined':
      return { type: 'supplier_payment.declined', at: event.declinedAt };
    case 'SupplierPaymentRejected':
      return { type: 'supplier_payment.rejected', at: event.rejectedAt };
    case 'SupplierPaymentCanceled':
      return { type: 'supplier_payment.canceled', at: event.canceledAt };
    case 'SupplierPaymentExpired':
      return { type: 'supplier_payment.expired', at: event.expiredAt };
    case 'SupplierPaymentCreated':
    case 'SupplierPaymentApprovalStarted':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`unknown supplier payment event ${JSON.stringify(unknown)}`);
    }
  }
};

/**
 * The integration event for a supplier payment's status change, or null when the domain event is not
 * one (creation, the start of an approval). `stateAfter` is the payment once `event` is applied;
 * `revision` is the event's place in the stream, which makes the event id stable and orders versions.
 */
export function toIntegrationEvent(event: SupplierPaymentEvent, stateAfter: SupplierPayment, revision: bigint): IntegrationEvent | null {
  const change = statusChange(event);
  if (!change || stateAfter.status === 'none') return null;
  const resource = toSupplierPaymentResource(stateAfter);
  return statusChangeEvent(supplierPaymentStreamId(resource.id), revision, { type: change.type, createdAt: change.at, integratorId: stateAfter.terms.integratorId, resource });
}

/** The supplier payment aggregate as the runtime knows it (repository, relay). */
export const supplierPaymentAggregate: AggregateType<SupplierPaymentCommand, SupplierPaymentEvent, SupplierPayment> = {
  name: 'supplier payment',
  decider: supplierPaymentDecider,
  streamId: supplierPaymentStreamId,
  eventTypePrefix: SUPPLIER_PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'SupplierPaymentCreated' || event.type === 'SupplierPaymentApprovalStarted',
};
