import type { RefundResource } from '@pay/contracts';
import type { Currency, Decider } from '@pay/kernel';

/**
 * The refund aggregate: money returned from the merchant to the customer who paid, for part or all of
 * a succeeded payment. Its amount is reserved on the payment first (so that concurrent refunds never
 * exceed it); the refund then runs its ledger step and records the outcome.
 */
export interface RefundTerms {
  refundId: string;
  integratorId: string;
  paymentId: string;
  amount: number;
  currency: Currency;
  reason: string | null;
  merchantConnection: string;
  customerId: string;
  createdAt: string;
}

export type RefundEvent =
  | ({ type: 'RefundRequested' } & RefundTerms)
  | { type: 'RefundSucceeded'; refundId: string; ledgerEntryId: string; succeededAt: string }
  | { type: 'RefundFailed'; refundId: string; reason: 'insufficient_balance'; failedAt: string };

export type Refund =
  | { status: 'none' }
  | { status: 'pending'; terms: RefundTerms }
  | { status: 'succeeded'; terms: RefundTerms; succeededAt: string }
  | { status: 'failed'; terms: RefundTerms; failureReason: 'insufficient_balance'; failedAt: string };

export type RefundOutcome = { status: 'completed'; entryId: string } | { status: 'rejected'; reason: 'insufficient_balance' };

export type RefundCommand = { type: 'RequestRefund'; terms: RefundTerms } | { type: 'CompleteRefund'; refundId: string; outcome: RefundOutcome; now: Date };

export const initialRefund: Refund = { status: 'none' };

export const evolveRefund = (state: Refund, event: RefundEvent): Refund => {
  switch (event.type) {
    case 'RefundRequested': {
      const { type: _type, ...terms } = event;
      return state.status === 'none' ? { status: 'pending', terms } : state;
    }
    case 'RefundSucceeded':
      return state.status === 'pending' ? { status: 'succeeded', terms: state.terms, succeededAt: event.succeededAt } : state;
    case 'RefundFailed':
      return state.status === 'pending' ? { status: 'failed', terms: state.terms, failureReason: event.reason, failedAt: event.failedAt } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown refund event ${JSON.stringify(unknown)}`);
    }
  }
};

/** Both commands are idempotent: a repeat (a retry, a recovery) decides nothing. */
export const decideRefund = (command: RefundCommand, state: Refund): RefundEvent[] => {
  switch (command.type) {
    case 'RequestRefund':
      return state.status === 'none' ? [{ type: 'RefundRequested', ...command.terms }] : [];
    case 'CompleteRefund': {
      if (state.status !== 'pending') return [];
      const at = command.now.toISOString();
      return command.outcome.status === 'completed'
        ? [{ type: 'RefundSucceeded', refundId: command.refundId, ledgerEntryId: command.outcome.entryId, succeededAt: at }]
        : [{ type: 'RefundFailed', refundId: command.refundId, reason: command.outcome.reason, failedAt: at }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown refund command ${JSON.stringify(unknown)}`);
    }
  }
};

export const refundDecider: Decider<RefundCommand, RefundEvent, Refund> = { decide: decideRefund, evolve: evolveRefund, initialState: initialRefund };

export const refundStreamId = (refundId: string): string => `refund-${refundId}`;

/** The ledger operation of a refund: one per refund, so a replay never moves money twice. */
export const refundOperationId = (refundId: string): string => `refund:${refundId}`;

export const toRefundResource = (state: Exclude<Refund, { status: 'none' }>): RefundResource => ({
  id: state.terms.refundId,
  object: 'refund',
  payment: state.terms.paymentId,
  amount: state.terms.amount,
  currency: state.terms.currency,
  reason: state.terms.reason,
  status: state.status,
  failure_reason: state.status === 'failed' ? state.failureReason : null,
  created_at: state.terms.createdAt,
});
