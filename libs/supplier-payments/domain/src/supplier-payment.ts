import type { SupplierPaymentDeclineReason } from '@pay/contracts';
import type { Currency } from '@pay/kernel';

/** The supplier payment aggregate: its events, its state (a union on status) and evolve. */

export interface SupplierPaymentTerms {
  supplierPaymentId: string;
  integratorId: string;
  payerConnection: string;
  beneficiary: string;
  amount: number;
  currency: Currency;
  invoiceReference: string;
  description: string | null;
  approvalUrl: string;
  expiresAt: string;
  createdAt: string;
}

export type SupplierPaymentEvent =
  | ({ type: 'SupplierPaymentCreated' } & SupplierPaymentTerms)
  | { type: 'SupplierPaymentApprovalStarted'; supplierPaymentId: string; operationId: string; approvedAt: string }
  | { type: 'SupplierPaymentSucceeded'; supplierPaymentId: string; feeAmount: number; ledgerEntryId: string; succeededAt: string }
  | { type: 'SupplierPaymentDeclined'; supplierPaymentId: string; reason: SupplierPaymentDeclineReason; declinedAt: string }
  | { type: 'SupplierPaymentRejected'; supplierPaymentId: string; rejectedAt: string }
  | { type: 'SupplierPaymentCanceled'; supplierPaymentId: string; canceledAt: string }
  | { type: 'SupplierPaymentExpired'; supplierPaymentId: string; expiredAt: string };

/** An approval whose ledger transfer is under way (or done, its outcome not yet recorded). */
export interface Approval {
  operationId: string;
  approvedAt: string;
}

export type SupplierPayment =
  | { status: 'none' }
  | { status: 'awaiting_approval'; terms: SupplierPaymentTerms; approval: Approval | null }
  | { status: 'succeeded'; terms: SupplierPaymentTerms; approval: Approval; feeAmount: number; succeededAt: string }
  | { status: 'declined'; terms: SupplierPaymentTerms; reason: SupplierPaymentDeclineReason; declinedAt: string }
  | { status: 'rejected'; terms: SupplierPaymentTerms; rejectedAt: string }
  | { status: 'canceled'; terms: SupplierPaymentTerms; canceledAt: string }
  | { status: 'expired'; terms: SupplierPaymentTerms; expiredAt: string };

export const initialSupplierPayment: SupplierPayment = { status: 'none' };

export const evolve = (state: SupplierPayment, event: SupplierPaymentEvent): SupplierPayment => {
  switch (event.type) {
    case 'SupplierPaymentCreated': {
      const { type: _type, ...terms } = event;
      return { status: 'awaiting_approval', terms, approval: null };
    }
    case 'SupplierPaymentApprovalStarted':
      if (state.status !== 'awaiting_approval') return state;
      return { ...state, approval: { operationId: event.operationId, approvedAt: event.approvedAt } };
    case 'SupplierPaymentSucceeded':
      if (state.status !== 'awaiting_approval' || !state.approval) return state;
      return { status: 'succeeded', terms: state.terms, approval: state.approval, feeAmount: event.feeAmount, succeededAt: event.succeededAt };
    case 'SupplierPaymentDeclined':
      if (state.status !== 'awaiting_approval') return state;
      return { status: 'declined', terms: state.terms, reason: event.reason, declinedAt: event.declinedAt };
    case 'SupplierPaymentRejected':
      if (state.status !== 'awaiting_approval') return state;
      return { status: 'rejected', terms: state.terms, rejectedAt: event.rejectedAt };
    case 'SupplierPaymentCanceled':
      if (state.status !== 'awaiting_approval') return state;
      return { status: 'canceled', terms: state.terms, canceledAt: event.canceledAt };
    case 'SupplierPaymentExpired':
      if (state.status !== 'awaiting_approval') return state;
      return { status: 'expired', terms: state.terms, expiredAt: event.expiredAt };
    default: {
      const unknown: never = event;
      throw new Error(`unknown supplier payment event ${JSON.stringify(unknown)}`);
    }
  }
};
