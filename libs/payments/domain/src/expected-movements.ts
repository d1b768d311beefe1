import { movement, type ExpectedMovements } from '@pay/contracts';
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
