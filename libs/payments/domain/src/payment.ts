import type { Currency } from '@pay/kernel';
import type { PaymentDeclineReason } from '@pay/contracts';

/** The payment aggregate: its events, its state (a union on status) and evolve. */

export interface PaymentTerms {
  paymentId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  merchantConnection: string;
  returnUrl: string;
  authorizationUrl: string;
  expiresAt: string;
  createdAt: string;
}

export type PaymentEvent =
  | ({ type: 'PaymentCreated' } & PaymentTerms)
  | { type: 'PaymentAuthorizationStarted'; paymentId: string; customerId: string; operationId: string; startedAt: string }
  | { type: 'PaymentSucceeded'; paymentId: string; feeAmount: number; netAmount: number; ledgerEntryId: string; succeededAt: string }
  | { type: 'PaymentDeclined'; paymentId: string; reason: PaymentDeclineReason; declinedAt: string }
  | { type: 'PaymentCanceled'; paymentId: string; canceledAt: string }
  | { type: 'PaymentExpired'; paymentId: string; expiredAt: string }
  /** Part of a succeeded payment set aside for a refund, before its ledger step: concurrent refunds never exceed the amount. */
  | { type: 'PaymentRefundReserved'; paymentId: string; refundId: string; amount: number; reason: string | null; reservedAt: string }
  /** The refund's outcome: refunded (amount_refunded grows) or failed (the reservation is released). */
  | { type: 'PaymentRefundSettled'; paymentId: string; refundId: string; refunded: boolean };

/** A refund reserved on the payment and not yet settled. */
export interface RefundReservation {
  amount: number;
  reason: string | null;
  reservedAt: string;
}

/** A customer's authorization whose ledger transfer is under way (or done, its outcome not yet recorded). */
export interface Authorization {
  customerId: string;
  operationId: string;
  startedAt: string;
}

export type Payment =
  | { status: 'none' }
  | { status: 'pending'; terms: PaymentTerms; authorization: Authorization | null }
  | {
      status: 'succeeded';
      terms: PaymentTerms;
      authorization: Authorization;
      feeAmount: number;
      netAmount: number;
      succeededAt: string;
      /** Refunded so far, and the refunds reserved whose outcome is not settled (absent: none yet). */
      amountRefunded?: number;
      pendingRefunds?: Record<string, RefundReservation>;
      /** The refunds whose outcome is settled: the same refund id again is a retry, never a second reservation. */
      settledRefundIds?: string[];
    }
  | { status: 'declined'; terms: PaymentTerms; reason: PaymentDeclineReason; declinedAt: string }
  | { status: 'canceled'; terms: PaymentTerms; canceledAt: string }
  | { status: 'expired'; terms: PaymentTerms; expiredAt: string };

export const initialPayment: Payment = { status: 'none' };

export const evolve = (state: Payment, event: PaymentEvent): Payment => {
  switch (event.type) {
    case 'PaymentCreated': {
      const { type: _type, ...terms } = event;
      return { status: 'pending', terms, authorization: null };
    }
    case 'PaymentAuthorizationStarted':
      if (state.status !== 'pending') return state;
      return { ...state, authorization: { customerId: event.customerId, operationId: event.operationId, startedAt: event.startedAt } };
    case 'PaymentSucceeded':
      if (state.status !== 'pending' || !state.authorization) return state;
      return {
        status: 'succeeded',
        terms: state.terms,
        authorization: state.authorization,
        feeAmount: event.feeAmount,
        netAmount: event.netAmount,
        succeededAt: event.succeededAt,
      };
    case 'PaymentDeclined':
      if (state.status !== 'pending') return state;
      return { status: 'declined', terms: state.terms, reason: event.reason, declinedAt: event.declinedAt };
    case 'PaymentCanceled':
      if (state.status !== 'pending') return state;
      return { status: 'canceled', terms: state.terms, canceledAt: event.canceledAt };
    case 'PaymentExpired':
      if (state.status !== 'pending') return state;
      return { status: 'expired', terms: state.terms, expiredAt: event.expiredAt };
    case 'PaymentRefundReserved': {
      if (state.status !== 'succeeded') return state;
      const reservation: RefundReservation = { amount: event.amount, reason: event.reason, reservedAt: event.reservedAt };
      return { ...state, pendingRefunds: { ...state.pendingRefunds, [event.refundId]: reservation } };
    }
    case 'PaymentRefundSettled': {
      if (state.status !== 'succeeded') return state;
      const { [event.refundId]: reservation, ...pendingRefunds } = state.pendingRefunds ?? {};
      if (!reservation) return state;
      return {
        ...state,
        pendingRefunds,
        settledRefundIds: [...(state.settledRefundIds ?? []), event.refundId],
        amountRefunded: (state.amountRefunded ?? 0) + (event.refunded ? reservation.amount : 0),
      };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown payment event ${JSON.stringify(unknown)}`);
    }
  }
};

/** What can still be refunded: the amount less what is refunded and what pending refunds hold. */
export const refundableAmount = (state: Extract<Payment, { status: 'succeeded' }>): number =>
  state.terms.amount - (state.amountRefunded ?? 0) - Object.values(state.pendingRefunds ?? {}).reduce((sum, r) => sum + r.amount, 0);
