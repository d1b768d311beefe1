import type { Currency } from '@pay/kernel';

/** The cash payment aggregate: its events, its state (a union on status) and evolve. */

export interface CashPaymentTerms {
  cashPaymentId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  merchantConnection: string;
  paymentReference: string;
  qrCodeUrl: string;
  instructionsUrl: string;
  expiresAt: string;
  createdAt: string;
}

export type CashPaymentEvent =
  | ({ type: 'CashPaymentCreated' } & CashPaymentTerms)
  | { type: 'CashPaymentValidationStarted'; cashPaymentId: string; cashPointId: string; receiptNumber: string; operationId: string; paidAt: string }
  | { type: 'CashPaymentSucceeded'; cashPaymentId: string; feeAmount: number; netAmount: number; ledgerEntryId: string; succeededAt: string }
  | { type: 'CashPaymentCanceled'; cashPaymentId: string; canceledAt: string }
  | { type: 'CashPaymentExpired'; cashPaymentId: string; expiredAt: string };

/** A cash agent's validation whose ledger transfer is under way (or done, its outcome not yet recorded). */
export interface CashValidation {
  cashPointId: string;
  receiptNumber: string;
  operationId: string;
  paidAt: string;
}

export type CashPayment =
  | { status: 'none' }
  | { status: 'awaiting_payment'; terms: CashPaymentTerms; validation: CashValidation | null }
  | { status: 'succeeded'; terms: CashPaymentTerms; validation: CashValidation; feeAmount: number; netAmount: number; succeededAt: string }
  | { status: 'canceled'; terms: CashPaymentTerms; canceledAt: string }
  | { status: 'expired'; terms: CashPaymentTerms; expiredAt: string };

export const initialCashPayment: CashPayment = { status: 'none' };

export const evolve = (state: CashPayment, event: CashPaymentEvent): CashPayment => {
  switch (event.type) {
    case 'CashPaymentCreated': {
      const { type: _type, ...terms } = event;
      return { status: 'awaiting_payment', terms, validation: null };
    }
    case 'CashPaymentValidationStarted':
      if (state.status !== 'awaiting_payment') return state;
      return {
        ...state,
        validation: { cashPointId: event.cashPointId, receiptNumber: event.receiptNumber, operationId: event.operationId, paidAt: event.paidAt },
      };
    case 'CashPaymentSucceeded':
      if (state.status !== 'awaiting_payment' || !state.validation) return state;
      return {
        status: 'succeeded',
        terms: state.terms,
        validation: state.validation,
        feeAmount: event.feeAmount,
        netAmount: event.netAmount,
        succeededAt: event.succeededAt,
      };
    case 'CashPaymentCanceled':
      if (state.status !== 'awaiting_payment') return state;
      return { status: 'canceled', terms: state.terms, canceledAt: event.canceledAt };
    case 'CashPaymentExpired':
      if (state.status !== 'awaiting_payment') return state;
      return { status: 'expired', terms: state.terms, expiredAt: event.expiredAt };
    default: {
      const unknown: never = event;
      throw new Error(`unknown cash payment event ${JSON.stringify(unknown)}`);
    }
  }
};
