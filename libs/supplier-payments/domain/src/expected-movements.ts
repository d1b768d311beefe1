import { movement, type ExpectedMovements } from '@pay/contracts';
import type { SupplierPayment } from './supplier-payment';

/** An approved supplier payment debited the business amount + fee and credited the beneficiary the amount. */
export const expectedSupplierPaymentMovements = (state: Exclude<SupplierPayment, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  if (state.status !== 'succeeded') return { objectId: terms.supplierPaymentId, byReference: {} };
  return {
    objectId: terms.supplierPaymentId,
    byReference: { [terms.supplierPaymentId]: movement(terms.payerConnection, terms.beneficiary, terms.amount, terms.amount + state.feeAmount, state.feeAmount, terms.currency) },
  };
};
