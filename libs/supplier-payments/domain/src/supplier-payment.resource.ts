import type { SupplierPaymentResource } from '@pay/contracts';
import type { SupplierPayment } from './supplier-payment';

/** The supplier payment as the API shows it. An approval under way is still `awaiting_approval` to the outside. */
export const toSupplierPaymentResource = (state: Exclude<SupplierPayment, { status: 'none' }>): SupplierPaymentResource => {
  const { terms } = state;
  return {
    id: terms.supplierPaymentId,
    object: 'supplier_payment',
    status: state.status,
    decline_reason: state.status === 'declined' ? state.reason : null,
    payer_connection: terms.payerConnection,
    beneficiary: terms.beneficiary,
    amount: terms.amount,
    currency: terms.currency,
    invoice_reference: terms.invoiceReference,
    description: terms.description,
    approval_url: state.status === 'awaiting_approval' ? terms.approvalUrl : null,
    fee_amount: state.status === 'succeeded' ? state.feeAmount : null,
    expires_at: terms.expiresAt,
    approved_at: state.status === 'succeeded' ? state.approval.approvedAt : null,
    succeeded_at: state.status === 'succeeded' ? state.succeededAt : null,
    created_at: terms.createdAt,
  };
};
