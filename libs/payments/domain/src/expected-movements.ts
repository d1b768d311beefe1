import { movement, paidOutAccount, payoutsInTransitAccount, type ExpectedMovements } from '@pay/contracts';
import type { Payout } from './payout';
import type { Payment } from './payment';
import type { Refund } from './refund';

/** A succeeded payment moved the amount from the customer: the net to the merchant, the fee to the platform. */
export const expectedPaymentMovements = (state: Exclude<Payment, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  if (state.status !== 'succeeded') return { objectId: terms.paymentId, byReference: {} };
  return {
    objectId: terms.paymentId,
    byReference: { [terms.paymentId]: movement(state.authorization.customerId, terms.merchantConnection, state.netAmount, terms.amount, state.feeAmount, terms.currency) },
  };
};

/** A succeeded refund moved its amount back from the merchant to the customer, without a fee. */
export const expectedRefundMovements = (state: Exclude<Refund, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  if (state.status !== 'succeeded') return { objectId: terms.refundId, byReference: {} };
  return { objectId: terms.refundId, byReference: { [terms.refundId]: movement(terms.merchantConnection, terms.customerId, terms.amount, terms.amount, 0, terms.currency) } };
};

/**
 * A payout's ledger steps all carry its id: the debit moved the amount from the connection into the
 * payouts in transit; a cancel or a return moved it back (nothing left, net); the bank's booking moved
 * it on from in transit to paid out. A refused payout moved nothing.
 */
export const expectedPayoutMovements = (state: Exclude<Payout, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  const inTransit = payoutsInTransitAccount(terms.currency);
  switch (state.status) {
    case 'requested':
    case 'rejected':
    case 'canceled':
    case 'failed':
      return { objectId: terms.payoutId, byReference: {} };
    case 'paid':
      return { objectId: terms.payoutId, byReference: { [terms.payoutId]: movement(terms.connection, paidOutAccount(terms.currency), terms.amount, terms.amount, 0, terms.currency) } };
    default:
      return { objectId: terms.payoutId, byReference: { [terms.payoutId]: movement(terms.connection, inTransit, terms.amount, terms.amount, 0, terms.currency) } };
  }
};
