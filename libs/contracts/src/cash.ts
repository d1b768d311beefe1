import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type ListObjects, type MessageKeys } from './common';
import { amount, currency, id, type ListResource } from './resources';
import { literal, named, nullable, object, oneOfValues, string, time, type Static } from './schema';

/** The cash app: cash checkout (cash payments) and the cash points where agents validate cash. */

export const CashPointResource = named('CashPoint', object({ id: id('cp_'), object: literal('cash_point'), name: string(), address: string(), created_at: time() }));
export type CashPointResource = Static<typeof CashPointResource>;

export interface CreateCashPoint {
  cashPointId: string;
  name: string;
  address: string;
}

export const CASH_PAYMENT_STATUSES = ['awaiting_payment', 'succeeded', 'expired', 'canceled'] as const;
export type CashPaymentStatus = (typeof CASH_PAYMENT_STATUSES)[number];

/** The cash payment as the API shows it (specification, "cash payment"). */
export const CashPaymentResource = named(
  'CashPayment',
  object(
    {
      id: id('cpay_'),
      object: literal('cash_payment'),
      status: oneOfValues(CASH_PAYMENT_STATUSES),
      amount: amount(),
      currency: currency(),
      order_reference: string(),
      merchant_connection: id('conn_'),
      payment_reference: string({ description: 'What the customer shows at a cash point.' }),
      qr_code_url: string({ format: 'uri' }),
      instructions_url: string({ format: 'uri' }),
      expires_at: time(),
      cash_point: nullable(id('cp_')),
      receipt_number: nullable(string()),
      fee_amount: nullable(amount()),
      net_amount: nullable(amount()),
      paid_at: nullable(time()),
      created_at: time(),
    },
    { description: 'A cash checkout: the customer pays cash at a cash point, and the merchant is credited.' },
  ),
);
export type CashPaymentResource = Static<typeof CashPaymentResource>;

export interface CreateCashPaymentRequest {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same cash payment. */
  cashPaymentId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  merchantConnection: string;
  /** Checked by the gateway (5 minutes to 30 days ahead); null: the default deadline (72 h). */
  expiresAt: string | null;
}

/** integratorId null: the hosted pages, which reach a cash payment by its unguessable id alone. */
export interface CashPaymentRef {
  integratorId: string | null;
  cashPaymentId: string;
}

/** The cash agent validates the cash at a cash point (the sandbox helper `pay`). */
export interface PayCashPaymentRequest extends CashPaymentRef {
  cashPointId: string;
  amount: number;
}

/**
 * What the instructions page shows besides the cash payment, known to the gateway only: the
 * customer's language, the platform's name and the merchant connection's name.
 */
export interface InstructionsPageContext {
  language: 'fr' | 'ar' | 'en';
  brandName: string;
  merchantName: string;
}

export interface CashTopics {
  'cash.cash-points.create': { request: CreateCashPoint; reply: CashPointResource };
  'cash.cash-points.list': { request: { limit: number }; reply: ListResource<CashPointResource> };
  'cash.cash-points.retrieve': { request: { cashPointId: string }; reply: CashPointResource };
  'cash.cash-payments.create': { request: CreateCashPaymentRequest; reply: CashPaymentResource };
  'cash.cash-payments.retrieve': { request: CashPaymentRef; reply: CashPaymentResource };
  'cash.cash-payments.cancel': { request: CashPaymentRef; reply: CashPaymentResource };
  'cash.cash-payments.pay': { request: PayCashPaymentRequest; reply: CashPaymentResource };
  /**
   * The agent application: the cash payment of a payment reference as typed (spaces and dashes
   * allowed). A mistyped reference (wrong length or check digit) is invalid_request, param `reference`.
   */
  'cash.cash-payments.find-by-reference': { request: { reference: string }; reply: CashPaymentResource };
  /** The page at instructions_url, rendered by the cash app (escaped HTML) in the language and brand the gateway chose. */
  'cash.cash-payments.instructions-page': { request: { cashPaymentId: string; page: InstructionsPageContext }; reply: { html: string } };
  /** The image at qr_code_url: a PNG QR code holding payment_reference, base64-encoded for the bus. */
  'cash.cash-payments.qr-code': { request: { cashPaymentId: string }; reply: { pngBase64: string } };
  'cash.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'cash.list': { request: ListObjects<'order_reference' | 'status' | 'payment_reference'>; reply: ListResource<CashPaymentResource> };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const CASH_MESSAGE_KEYS = {
  'cash.cash-points.create': 'cashPointId',
  'cash.cash-points.list': null,
  'cash.cash-points.retrieve': 'cashPointId',
  'cash.cash-payments.create': 'cashPaymentId',
  'cash.cash-payments.retrieve': 'cashPaymentId',
  'cash.cash-payments.cancel': 'cashPaymentId',
  'cash.cash-payments.pay': 'cashPaymentId',
  /** A read by the reference as typed (not yet known to be any cash payment's): a random key. */
  'cash.cash-payments.find-by-reference': null,
  'cash.cash-payments.instructions-page': 'cashPaymentId',
  'cash.cash-payments.qr-code': 'cashPaymentId',
  'cash.apply-deadlines': null,
  'cash.list': null,
} as const satisfies MessageKeys<CashTopics>;

export const CASH_TOPICS = topicsOf(CASH_MESSAGE_KEYS);
