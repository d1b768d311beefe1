import { statusChangeEvents, type AggregateType } from '@pay/event-store';
import {
  SUPPLIER_PAYMENT_EVENT_PREFIX,
  supplierPaymentDecider,
  supplierPaymentStreamId,
  toSupplierPaymentResource,
  type SupplierPayment,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
} from '@pay/supplier-payments-domain';

/**
 * The integration event for a supplier payment's status change, or null when the domain event is not
 * one (creation, the start of an approval).
 */
export const toIntegrationEvent = statusChangeEvents<SupplierPaymentEvent, SupplierPayment>(supplierPaymentStreamId, toSupplierPaymentResource, {
  SupplierPaymentCreated: null,
  SupplierPaymentApprovalStarted: null,
  SupplierPaymentSucceeded: { type: 'supplier_payment.succeeded', at: (event) => event.succeededAt },
  SupplierPaymentDeclined: { type: 'supplier_payment.declined', at: (event) => event.declinedAt },
  SupplierPaymentRejected: { type: 'supplier_payment.rejected', at: (event) => event.rejectedAt },
  SupplierPaymentCanceled: { type: 'supplier_payment.canceled', at: (event) => event.canceledAt },
  SupplierPaymentExpired: { type: 'supplier_payment.expired', at: (event) => event.expiredAt },
});

/** The supplier payment aggregate as the runtime knows it (repository, relay). */
export const supplierPaymentAggregate: AggregateType<SupplierPaymentCommand, SupplierPaymentEvent, SupplierPayment> = {
  name: 'supplier payment',
  decider: supplierPaymentDecider,
  streamId: supplierPaymentStreamId,
  eventTypePrefix: SUPPLIER_PAYMENT_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'SupplierPaymentCreated' || event.type === 'SupplierPaymentApprovalStarted',
  expire: (supplierPaymentId, now) => ({ type: 'ExpireSupplierPayment', supplierPaymentId, now }),
};
