import { ServiceError } from '@pay/contracts';
import type { Currency } from '@pay/kernel';
import { refundableAmount, type Payment, type PaymentEvent, type PaymentTerms } from './payment';

/** Commands on a payment. Time and new ids arrive on the command: decide stays pure. */
export type PaymentCommand =
  | { type: 'CreatePayment'; terms: Omit<PaymentTerms, 'createdAt' | 'expiresAt'>; expiresAt: Date; now: Date }
  | { type: 'StartAuthorization'; paymentId: string; customerId: string; customerCurrency: Currency; now: Date }
  | { type: 'CompleteAuthorization'; paymentId: string; outcome: AuthorizationOutcome; now: Date }
  | { type: 'DeclinePayment'; paymentId: string; now: Date }
  | { type: 'CancelPayment'; paymentId: string; now: Date }
  | { type: 'ExpirePayment'; paymentId: string; now: Date }
  /** amount null: all that is still refundable. A refund id already reserved (or settled) decides nothing (a retry). */
  | { type: 'ReserveRefund'; paymentId: string; refundId: string; amount: number | null; reason: string | null; now: Date }
  | { type: 'SettleRefund'; paymentId: string; refundId: string; refunded: boolean };

export type AuthorizationOutcome =
  | { status: 'completed'; entryId: string; feeAmount: number; netAmount: number }
  | { status: 'rejected'; reason: 'insufficient_balance' };

/** The ledger operation of a payment's authorization: one per payment, so a replay never moves money twice. */
export const authorizationOperationId = (paymentId: string): string => `payment-authorization:${paymentId}`;

type Pending = Extract<Payment, { status: 'pending' }>;

export const decide = (command: PaymentCommand, state: Payment): PaymentEvent[] => {
  switch (command.type) {
    case 'CreatePayment':
      return create(command, state);
    case 'StartAuthorization':
      return startAuthorization(command, state);
    case 'CompleteAuthorization':
      return completeAuthorization(command, state);
    case 'DeclinePayment':
      return declineByCustomer(command, state);
    case 'CancelPayment':
      return cancel(command, state);
    case 'ExpirePayment':
      return expire(command, state);
    case 'ReserveRefund':
      return reserveRefund(command, state);
    case 'SettleRefund':
      return settleRefund(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown payment command ${JSON.stringify(unknown)}`);
    }
  }
};

const create = (command: Extract<PaymentCommand, { type: 'CreatePayment' }>, state: Payment): PaymentEvent[] => {
  if (state.status !== 'none') return []; // same id again (a retried create): the payment already exists
  return [{ type: 'PaymentCreated', ...command.terms, expiresAt: command.expiresAt.toISOString(), createdAt: command.now.toISOString() }];
};

const startAuthorization = (command: Extract<PaymentCommand, { type: 'StartAuthorization' }>, state: Payment): PaymentEvent[] => {
  const pending = requireOpen(state, command.now, 'authorized');
  if (command.customerCurrency !== pending.terms.currency) {
    throw new ServiceError('currency_mismatch', `the customer's account is in ${command.customerCurrency}, the payment in ${pending.terms.currency}`, 'customer');
  }
  return [
    {
      type: 'PaymentAuthorizationStarted',
      paymentId: pending.terms.paymentId,
      customerId: command.customerId,
      operationId: authorizationOperationId(pending.terms.paymentId),
      startedAt: command.now.toISOString(),
    },
  ];
};

/** Records the ledger's answer. Idempotent: once recorded, a replayed outcome decides nothing. */
const completeAuthorization = (command: Extract<PaymentCommand, { type: 'CompleteAuthorization' }>, state: Payment): PaymentEvent[] => {
  if (state.status !== 'pending') return [];
  if (!state.authorization) throw new Error(`payment ${state.terms.paymentId}: no authorization to complete`);
  const paymentId = state.terms.paymentId;
  const at = command.now.toISOString();
  const { outcome } = command;
  if (outcome.status === 'rejected') return [{ type: 'PaymentDeclined', paymentId, reason: outcome.reason, declinedAt: at }];
  if (outcome.feeAmount < 0 || outcome.netAmount < 0 || outcome.feeAmount + outcome.netAmount !== state.terms.amount) {
    throw new Error(`payment ${paymentId}: fee ${outcome.feeAmount} + net ${outcome.netAmount} is not the amount ${state.terms.amount}`);
  }
  return [{ type: 'PaymentSucceeded', paymentId, feeAmount: outcome.feeAmount, netAmount: outcome.netAmount, ledgerEntryId: outcome.entryId, succeededAt: at }];
};

const declineByCustomer = (command: Extract<PaymentCommand, { type: 'DeclinePayment' }>, state: Payment): PaymentEvent[] => {
  const pending = requireOpen(state, command.now, 'declined');
  return [{ type: 'PaymentDeclined', paymentId: pending.terms.paymentId, reason: 'customer_declined', declinedAt: command.now.toISOString() }];
};

const cancel = (command: Extract<PaymentCommand, { type: 'CancelPayment' }>, state: Payment): PaymentEvent[] => {
  const pending = requirePending(state, 'canceled');
  if (pending.authorization) throw new ServiceError('invalid_status', 'the payment is being authorized and can no longer be canceled');
  // At its authorization deadline the payment is expired (contract §4), even before the sweep records it.
  if (isPastDeadline(pending, command.now)) throw new ServiceError('invalid_status', `the payment expired at ${pending.terms.expiresAt} and cannot be canceled`);
  return [{ type: 'PaymentCanceled', paymentId: pending.terms.paymentId, canceledAt: command.now.toISOString() }];
};

/** At the deadline, a pending payment nobody is authorizing expires; anything else is left as it is. */
const expire = (command: Extract<PaymentCommand, { type: 'ExpirePayment' }>, state: Payment): PaymentEvent[] => {
  if (state.status !== 'pending' || state.authorization || !isPastDeadline(state, command.now)) return [];
  return [{ type: 'PaymentExpired', paymentId: state.terms.paymentId, expiredAt: command.now.toISOString() }];
};

const requirePending = (state: Payment, action: string): Pending => {
  if (state.status === 'none') throw new Error('payment does not exist');
  if (state.status !== 'pending') throw new ServiceError('invalid_status', `the payment is ${state.status} and cannot be ${action}`);
  return state;
};

/** Pending, not already being authorized, and not past its authorization deadline. */
const requireOpen = (state: Payment, now: Date, action: string): Pending => {
  const pending = requirePending(state, action);
  if (pending.authorization) throw new ServiceError('invalid_status', 'the payment is already being authorized');
  if (isPastDeadline(pending, now)) throw new ServiceError('invalid_status', `the payment expired at ${pending.terms.expiresAt} and cannot be ${action}`);
  return pending;
};

const isPastDeadline = (state: Pending, now: Date): boolean => now.getTime() >= Date.parse(state.terms.expiresAt);

const reserveRefund = (command: Extract<PaymentCommand, { type: 'ReserveRefund' }>, state: Payment): PaymentEvent[] => {
  if (state.status === 'none') throw new Error('payment does not exist');
  if (state.status !== 'succeeded') throw new ServiceError('invalid_status', `the payment is ${state.status}: only a succeeded payment can be refunded`);
  if (state.pendingRefunds?.[command.refundId] || state.settledRefundIds?.includes(command.refundId)) return [];
  const refundable = refundableAmount(state);
  if (refundable === 0) {
    // No range to offer: the payment is fully refunded (or reserved for refunds in flight). `amount` is at fault only when sent.
    throw new ServiceError('invalid_amount', 'nothing left to refund: the payment is fully refunded', (command.amount ?? undefined) === undefined ? undefined : 'amount');
  }
  const amount = command.amount ?? refundable;
  if (amount < 1 || amount > refundable) {
    throw new ServiceError('invalid_amount', `the amount to refund must be from 1 to ${refundable}, what is still refundable on this payment`, 'amount');
  }
  return [{ type: 'PaymentRefundReserved', paymentId: command.paymentId, refundId: command.refundId, amount, reason: command.reason, reservedAt: command.now.toISOString() }];
};

const settleRefund = (command: Extract<PaymentCommand, { type: 'SettleRefund' }>, state: Payment): PaymentEvent[] => {
  if (state.status !== 'succeeded' || !state.pendingRefunds?.[command.refundId]) return []; // settled already
  return [{ type: 'PaymentRefundSettled', paymentId: command.paymentId, refundId: command.refundId, refunded: command.refunded }];
};
