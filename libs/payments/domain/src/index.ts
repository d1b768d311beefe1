import { decide, type PaymentCommand } from './payment.decide';
import { evolve, initialPayment, type Payment, type PaymentEvent } from './payment';

export * from './payment';
export * from './payment.decide';
export * from './payment.resource';

export const paymentDecider = { decide, evolve, initialState: initialPayment } satisfies {
  decide(command: PaymentCommand, state: Payment): PaymentEvent[];
  evolve(state: Payment, event: PaymentEvent): Payment;
  initialState: Payment;
};

export const paymentStreamId = (paymentId: string): string => `payment-${paymentId}`;
export * from './refund';
export * from './expected-movements';
