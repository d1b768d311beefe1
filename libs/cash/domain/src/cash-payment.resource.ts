import type { CashPaymentResource } from '@pay/contracts';
import type { CashPayment } from './cash-payment';

/** The cash payment as the API shows it. A validation under way is still `awaiting_payment` to the outside. */
export const toCashPaymentResource = (state: Exclude<CashPayment, { status: 'none' }>): CashPaymentResource => {
  const { terms } = state;
  const succeeded = state.status === 'succeeded' ? state : null;
  return {
    id: terms.cashPaymentId,
    object: 'cash_payment',
    status: state.status,
    amount: terms.amount,
    currency: terms.currency,
    order_reference: terms.orderReference,
    merchant_connection: terms.merchantConnection,
    payment_reference: terms.paymentReference,
    qr_code_url: terms.qrCodeUrl,
    instructions_url: terms.instructionsUrl,
    expires_at: terms.expiresAt,
    cash_point: succeeded?.validation.cashPointId ?? null,
    receipt_number: succeeded?.validation.receiptNumber ?? null,
    fee_amount: succeeded?.feeAmount ?? null,
    net_amount: succeeded?.netAmount ?? null,
    paid_at: succeeded?.validation.paidAt ?? null,
    created_at: terms.createdAt,
  };
};
