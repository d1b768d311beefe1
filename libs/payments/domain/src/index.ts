import type { Decider } from '@pay/kernel';
import { decide, type PaymentCommand } from './payment.decide';
import { evolve, initialPayment, type Payment, type PaymentEvent } from './payment';

export * from './payment';
export * from './payment.decide';
export * from './payment.resource';

export const paymentDecider: Decider<PaymentCommand, PaymentEvent, Payment> = { decide, evolve, initialState: initialPayment };

export const paymentStreamId = (paymentId: string): string => `payment-${paymentId}`;
export * from './refund';
export * from './expected-movements';
export * from './payout';
export * from './bank-account';
