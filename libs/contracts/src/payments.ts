import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type IntegratorObjectRef, type ListObjects, type MessageKeys } from './common';
import type { ListResource, PaymentResource, RefundResource } from './resources';

/** The payments app: Pay (payments authorized by the customer) and their refunds. */

export interface CreatePaymentRequest {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same payment. */
  paymentId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  merchantConnection: string;
  returnUrl: string;
}

/** integratorId null: the hosted page, which reaches a payment by its unguessable id alone. */
export interface PaymentRef {
  integratorId: string | null;
  paymentId: string;
}

export interface AuthorizePaymentRequest extends PaymentRef {
  customer: { id: string; currency: Currency };
}

export interface CreateRefund {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same refund. */
  refundId: string;
  integratorId: string;
  paymentId: string;
  /** null: all that is still refundable. */
  amount: number | null;
  reason: string | null;
}

export interface PaymentsTopics {
  'payments.create': { request: CreatePaymentRequest; reply: PaymentResource };
  'payments.retrieve': { request: PaymentRef; reply: PaymentResource };
  'payments.cancel': { request: PaymentRef; reply: PaymentResource };
  'payments.authorize': { request: AuthorizePaymentRequest; reply: PaymentResource };
  'payments.decline': { request: PaymentRef; reply: PaymentResource };
  'payments.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'payments.list': { request: ListObjects<'order_reference' | 'status' | 'merchant_connection'>; reply: ListResource<PaymentResource> };
  'payments.refunds.create': { request: CreateRefund; reply: RefundResource };
  'payments.refunds.retrieve': { request: IntegratorObjectRef; reply: RefundResource };
  'payments.refunds.list': { request: ListObjects<'payment'>; reply: ListResource<RefundResource> };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const PAYMENTS_MESSAGE_KEYS = {
  'payments.create': 'paymentId',
  'payments.retrieve': 'paymentId',
  'payments.cancel': 'paymentId',
  'payments.authorize': 'paymentId',
  'payments.decline': 'paymentId',
  'payments.apply-deadlines': null,
  'payments.list': null,
  /** By the payment refunded: concurrent refunds of one payment stay in order. */
  'payments.refunds.create': 'paymentId',
  'payments.refunds.retrieve': 'id',
  'payments.refunds.list': null,
} as const satisfies MessageKeys<PaymentsTopics>;

export const PAYMENTS_TOPICS = topicsOf(PAYMENTS_MESSAGE_KEYS);
