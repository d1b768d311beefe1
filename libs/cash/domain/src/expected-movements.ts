import { movement, type ExpectedMovements } from '@pay/contracts';
import type { CashPayment } from './cash-payment';

/** Validated cash entered through `platform:cash`: the net to the merchant, the fee to the platform. */
export const expectedCashPaymentMovements = (state: Exclude<CashPayment, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  if (state.status !== 'succeeded') return { objectId: terms.cashPaymentId, byReference: {} };
  return {
    objectId: terms.cashPaymentId,
    byReference: { [terms.cashPaymentId]: movement(`platform:cash:${terms.currency}`, terms.merchantConnection, state.netAmount, terms.amount, state.feeAmount, terms.currency) },
  };
};
