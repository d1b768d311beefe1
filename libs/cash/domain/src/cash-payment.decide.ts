import { ServiceError } from '@pay/contracts';
import { PAYMENT_REFERENCE_LENGTH } from '@pay/kernel';
import type { CashPayment, CashPaymentEvent, CashPaymentTerms } from './cash-payment';
import { hasValidDammCheckDigit } from './payment-reference';

/** Commands on a cash payment. Time, new ids and numbers arrive on the command: decide stays pure. */
export type CashPaymentCommand =
  | { type: 'CreateCashPayment'; terms: Omit<CashPaymentTerms, 'createdAt' | 'expiresAt'>; expiresAt: Date; now: Date }
  | { type: 'ValidateCash'; cashPaymentId: string; cashPointId: string; amount: number; receiptNumber: string; now: Date }
  | { type: 'CompleteCashValidation'; cashPaymentId: string; outcome: CashValidationOutcome; now: Date }
  | { type: 'CancelCashPayment'; cashPaymentId: string; now: Date }
  | { type: 'ExpireCashPayment'; cashPaymentId: string; now: Date };

/** The ledger's answer: cash held at a cash point may go below zero, so the transfer always completes. */
export interface CashValidationOutcome {
  entryId: string;
  feeAmount: number;
  netAmount: number;
}

/** The ledger operation of a cash payment: one per cash payment, so a replay never credits twice. */
export const cashPaymentOperationId = (cashPaymentId: string): string => `cash-payment:${cashPaymentId}`;

type Awaiting = Extract<CashPayment, { status: 'awaiting_payment' }>;

export const decide = (command: CashPaymentCommand, state: CashPayment): CashPaymentEvent[] => {
  switch (command.type) {
    case 'CreateCashPayment':
      return create(command, state);
    case 'ValidateCash':
      return validateCash(command, state);
    case 'CompleteCashValidation':
      return completeValidation(command, state);
    case 'CancelCashPayment':
      return cancel(command, state);
    case 'ExpireCashPayment':
      return expire(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown cash payment command ${JSON.stringify(unknown)}`);
    }
  }
};

const create = (command: Extract<CashPaymentCommand, { type: 'CreateCashPayment' }>, state: CashPayment): CashPaymentEvent[] => {
  if (state.status !== 'none') return []; // same id again (a retried create): the cash payment already exists
  const { terms, expiresAt, now } = command;
  if (terms.paymentReference.length !== PAYMENT_REFERENCE_LENGTH || !hasValidDammCheckDigit(terms.paymentReference)) {
    throw new Error(`cash payment ${terms.cashPaymentId}: '${terms.paymentReference}' is not a payment reference`);
  }
  if (expiresAt.getTime() <= now.getTime()) throw new ServiceError('invalid_request', 'expires_at must be in the future', 'expires_at');
  return [{ type: 'CashPaymentCreated', ...terms, expiresAt: expiresAt.toISOString(), createdAt: now.toISOString() }];
};

/** The agent validates the cash: only the exact amount, only while the payment is open. */
const validateCash = (command: Extract<CashPaymentCommand, { type: 'ValidateCash' }>, state: CashPayment): CashPaymentEvent[] => {
  const open = requireOpen(state, command.now, 'paid');
  if (command.amount !== open.terms.amount) {
    throw new ServiceError('invalid_amount', `the exact amount ${open.terms.amount} must be paid, not ${command.amount}`, 'amount');
  }
  const { cashPaymentId } = open.terms;
  return [
    {
      type: 'CashPaymentValidationStarted',
      cashPaymentId,
      cashPointId: command.cashPointId,
      receiptNumber: command.receiptNumber,
      operationId: cashPaymentOperationId(cashPaymentId),
      paidAt: command.now.toISOString(),
    },
  ];
};

/** Records the ledger's answer. Idempotent: once recorded, a replayed outcome decides nothing. */
const completeValidation = (command: Extract<CashPaymentCommand, { type: 'CompleteCashValidation' }>, state: CashPayment): CashPaymentEvent[] => {
  if (state.status !== 'awaiting_payment') return [];
  if (!state.validation) throw new Error(`cash payment ${state.terms.cashPaymentId}: no validation to complete`);
  const { cashPaymentId, amount } = state.terms;
  const { outcome } = command;
  if (outcome.feeAmount < 0 || outcome.netAmount < 0 || outcome.feeAmount + outcome.netAmount !== amount) {
    throw new Error(`cash payment ${cashPaymentId}: fee ${outcome.feeAmount} + net ${outcome.netAmount} is not the amount ${amount}`);
  }
  return [
    {
      type: 'CashPaymentSucceeded',
      cashPaymentId,
      feeAmount: outcome.feeAmount,
      netAmount: outcome.netAmount,
      ledgerEntryId: outcome.entryId,
      succeededAt: command.now.toISOString(),
    },
  ];
};

/** Cancel: only an open payment; a validated one (money moving) and one past its deadline cannot be. */
const cancel = (command: Extract<CashPaymentCommand, { type: 'CancelCashPayment' }>, state: CashPayment): CashPaymentEvent[] => {
  const open = requireOpen(state, command.now, 'canceled');
  return [{ type: 'CashPaymentCanceled', cashPaymentId: open.terms.cashPaymentId, canceledAt: command.now.toISOString() }];
};

/** At the deadline, a payment awaiting cash that no agent has validated expires; anything else is left as it is. */
const expire = (command: Extract<CashPaymentCommand, { type: 'ExpireCashPayment' }>, state: CashPayment): CashPaymentEvent[] => {
  if (state.status !== 'awaiting_payment' || state.validation || !isPastDeadline(state, command.now)) return [];
  return [{ type: 'CashPaymentExpired', cashPaymentId: state.terms.cashPaymentId, expiredAt: command.now.toISOString() }];
};

/** Awaiting payment, no cash validated yet, and not past its deadline. */
const requireOpen = (state: CashPayment, now: Date, action: string): Awaiting => {
  if (state.status === 'none') throw new Error('cash payment does not exist');
  if (state.status !== 'awaiting_payment') throw new ServiceError('invalid_status', `the cash payment is ${state.status} and cannot be ${action}`);
  if (state.validation) throw new ServiceError('invalid_status', 'the cash has already been validated; the payment is completing');
  if (isPastDeadline(state, now)) throw new ServiceError('invalid_status', `the cash payment expired at ${state.terms.expiresAt} and cannot be ${action}`);
  return state;
};

const isPastDeadline = (state: Awaiting, now: Date): boolean => now.getTime() >= Date.parse(state.terms.expiresAt);
