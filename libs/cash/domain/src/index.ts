import type { Decider } from '@pay/kernel';
import { decide, type CashPaymentCommand } from './cash-payment.decide';
import { evolve, initialCashPayment, type CashPayment, type CashPaymentEvent } from './cash-payment';

export * from './cash-payment';
export * from './cash-payment.decide';
export * from './cash-payment.resource';
export * from './payment-reference';

export const cashPaymentDecider: Decider<CashPaymentCommand, CashPaymentEvent, CashPayment> = { decide, evolve, initialState: initialCashPayment };

export const cashPaymentStreamId = (cashPaymentId: string): string => `cash-payment-${cashPaymentId}`;

/** Type prefix of every cash payment event (the subscriptions' filter). */
export const CASH_PAYMENT_EVENT_PREFIX = 'CashPayment';
export * from './expected-movements';
