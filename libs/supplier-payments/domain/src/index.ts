import type { Decider } from '@pay/kernel';
import { decide, type SupplierPaymentCommand } from './supplier-payment.decide';
import { evolve, initialSupplierPayment, type SupplierPayment, type SupplierPaymentEvent } from './supplier-payment';

export * from './supplier-payment';
export * from './supplier-payment.decide';
export * from './supplier-payment.resource';

export const supplierPaymentDecider: Decider<SupplierPaymentCommand, SupplierPaymentEvent, SupplierPayment> = { decide, evolve, initialState: initialSupplierPayment };

export const supplierPaymentStreamId = (supplierPaymentId: string): string => `supplier-payment-${supplierPaymentId}`;

/** Domain event types all start with this: the prefix the projection and the relay subscribe to. */
export const SUPPLIER_PAYMENT_EVENT_PREFIX = 'SupplierPayment';
export * from './expected-movements';
