import type { PaymentResource } from '@pay/contracts';
import type { Payment } from './payment';

/** The payment as the API shows it. An authorization under way is still `pending` to the outside. */
export const toPaymentResource = (state: Exclude<Payment, { status: 'none' }>): PaymentResource => {
  const { terms } = state;
  return {
    id: terms.paymentId,
    object: 'payment',
    status: state.status,
    decline_reason: state.status === 'declined' ? state.reason : null,
    amount: terms.amount,
    currency: terms.currency,
    order_reference: terms.orderReference,
    merchant_connection: terms.merchantConnection,
    authorization_url: state.status === 'pending' ? terms.authorizationUrl : null,
    return_url: terms.returnUrl,
    fee_amount: state.status === 'succeeded' ? state.feeAmount : null,
    net_amount: state.status === 'succeeded' ? state.netAmount : null,
    amount_refunded: state.status === 'succeeded' ? (state.amountRefunded ?? 0) : 0,
    expires_at: terms.expiresAt,
    succeeded_at: state.status === 'succeeded' ? state.succeededAt : null,
    created_at: terms.createdAt,
  };
};
