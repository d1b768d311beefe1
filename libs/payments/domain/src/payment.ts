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
  | { type: 'PaymentExpired'; paymentId: string; expiredAt: string };

/** A customer's authorization whose ledger transfer is under way (or done, its outcome not yet recorded). */
export interface Authorization {
  customerId: string;
  operationId: string;
  startedAt: string;
}

export type Payment =
  | { status: 'none' }
  | { status: 'pending'; terms: PaymentTerms; authorization: Authorization | null }
  | { status: 'succeeded'; terms: PaymentTerms; authorization: Authorization; feeAmount: number; netAmount: number; succeededAt: string }
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
    default: {
      const unknown: never = event;
      throw new Error(`unknown payment event ${JSON.stringify(unknown)}`);
    }
  }
};
