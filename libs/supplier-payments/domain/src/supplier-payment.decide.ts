import { ServiceError } from '@pay/contracts';
import type { Currency } from '@pay/kernel';
import type { SupplierPayment, SupplierPaymentEvent, SupplierPaymentTerms } from './supplier-payment';

/** What the create needs to know of the named beneficiary (null: no such beneficiary). */
export interface BeneficiaryFacts {
  id: string;
  business: string;
  currency: Currency;
  status: 'authorized' | 'revoked';
}

/** Commands on a supplier payment. Time, new ids and facts read elsewhere arrive on the command: decide stays pure. */
export type SupplierPaymentCommand =
  | {
      type: 'CreateSupplierPayment';
      terms: Omit<SupplierPaymentTerms, 'createdAt' | 'expiresAt'>;
      payerCurrency: Currency;
      beneficiary: BeneficiaryFacts | null;
      expiresAt: Date;
      now: Date;
    }
  | { type: 'ApproveSupplierPayment'; supplierPaymentId: string; beneficiaryAvailable: boolean; now: Date }
  | { type: 'CompleteApproval'; supplierPaymentId: string; outcome: ApprovalOutcome; now: Date }
  | { type: 'RejectSupplierPayment'; supplierPaymentId: string; now: Date }
  | { type: 'CancelSupplierPayment'; supplierPaymentId: string; now: Date }
  | { type: 'ExpireSupplierPayment'; supplierPaymentId: string; now: Date };

/** The ledger's answer: the business debited `debitedAmount` (amount + fee), or nothing moved. */
export type ApprovalOutcome =
  | { status: 'completed'; entryId: string; feeAmount: number; debitedAmount: number }
  | { status: 'rejected'; reason: 'insufficient_balance' };

/** The ledger operation of a supplier payment's approval: one per payment, so a replay never moves money twice. */
export const approvalOperationId = (supplierPaymentId: string): string => `supplier-payment-approval:${supplierPaymentId}`;

type Awaiting = Extract<SupplierPayment, { status: 'awaiting_approval' }>;
type Command<T extends SupplierPaymentCommand['type']> = Extract<SupplierPaymentCommand, { type: T }>;

export const decide = (command: SupplierPaymentCommand, state: SupplierPayment): SupplierPaymentEvent[] => {
  switch (command.type) {
    case 'CreateSupplierPayment':
      return create(command, state);
    case 'ApproveSupplierPayment':
      return approve(command, state);
    case 'CompleteApproval':
      return completeApproval(command, state);
    case 'RejectSupplierPayment':
      return reject(command, state);
    case 'CancelSupplierPayment':
      return cancel(command, state);
    case 'ExpireSupplierPayment':
      return expire(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown supplier payment command ${JSON.stringify(unknown)}`);
    }
  }
};

/** Authorization (beneficiary) before currency_mismatch, as the contract orders them. */
const create = (command: Command<'CreateSupplierPayment'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  if (state.status !== 'none') return []; // same id again (a retried create): the payment already exists
  const { terms, beneficiary } = command;
  if (!beneficiary || beneficiary.id !== terms.beneficiary || beneficiary.status !== 'authorized' || beneficiary.business !== terms.payerConnection) {
    throw new ServiceError('beneficiary_not_authorized', `beneficiary '${terms.beneficiary}' is not an authorized beneficiary of ${terms.payerConnection}`, 'beneficiary');
  }
  if (command.payerCurrency !== terms.currency) {
    throw new ServiceError('currency_mismatch', `connection ${terms.payerConnection} holds ${command.payerCurrency}, not ${terms.currency}`, 'currency');
  }
  if (beneficiary.currency !== terms.currency) {
    throw new ServiceError('currency_mismatch', `beneficiary ${beneficiary.id} holds ${beneficiary.currency}, not ${terms.currency}`, 'currency');
  }
  return [{ type: 'SupplierPaymentCreated', ...terms, expiresAt: command.expiresAt.toISOString(), createdAt: command.now.toISOString() }];
};

/** The authorized user approves: the transfer starts, or the payment declines at once if the beneficiary was revoked. */
const approve = (command: Command<'ApproveSupplierPayment'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  const open = requireOpen(state, command.now, 'approved');
  const supplierPaymentId = open.terms.supplierPaymentId;
  const at = command.now.toISOString();
  if (!command.beneficiaryAvailable) return [{ type: 'SupplierPaymentDeclined', supplierPaymentId, reason: 'beneficiary_unavailable', declinedAt: at }];
  return [{ type: 'SupplierPaymentApprovalStarted', supplierPaymentId, operationId: approvalOperationId(supplierPaymentId), approvedAt: at }];
};

/** Records the ledger's answer. Idempotent: once recorded, a replayed outcome decides nothing. */
const completeApproval = (command: Command<'CompleteApproval'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  if (state.status !== 'awaiting_approval') return [];
  const supplierPaymentId = state.terms.supplierPaymentId;
  if (!state.approval) throw new Error(`supplier payment ${supplierPaymentId}: no approval to complete`);
  const at = command.now.toISOString();
  const { outcome } = command;
  if (outcome.status === 'rejected') return [{ type: 'SupplierPaymentDeclined', supplierPaymentId, reason: outcome.reason, declinedAt: at }];
  if (outcome.feeAmount < 0 || outcome.debitedAmount !== state.terms.amount + outcome.feeAmount) {
    throw new Error(`supplier payment ${supplierPaymentId}: debited ${outcome.debitedAmount} is not the amount ${state.terms.amount} + fee ${outcome.feeAmount}`);
  }
  return [{ type: 'SupplierPaymentSucceeded', supplierPaymentId, feeAmount: outcome.feeAmount, ledgerEntryId: outcome.entryId, succeededAt: at }];
};

const reject = (command: Command<'RejectSupplierPayment'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  const open = requireOpen(state, command.now, 'rejected');
  return [{ type: 'SupplierPaymentRejected', supplierPaymentId: open.terms.supplierPaymentId, rejectedAt: command.now.toISOString() }];
};

const cancel = (command: Command<'CancelSupplierPayment'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  const awaiting = requireAwaiting(state, 'canceled');
  if (awaiting.approval) throw new ServiceError('invalid_status', 'the supplier payment is being approved and can no longer be canceled');
  // At the approval deadline the payment is expired (contract §4), even before the sweep records it.
  if (isPastDeadline(awaiting, command.now)) throw new ServiceError('invalid_status', `the approval deadline passed at ${awaiting.terms.expiresAt}; the payment cannot be canceled`);
  return [{ type: 'SupplierPaymentCanceled', supplierPaymentId: awaiting.terms.supplierPaymentId, canceledAt: command.now.toISOString() }];
};

/** At the approval deadline, a payment nobody is approving expires; anything else is left as it is. */
const expire = (command: Command<'ExpireSupplierPayment'>, state: SupplierPayment): SupplierPaymentEvent[] => {
  if (state.status !== 'awaiting_approval' || state.approval || !isPastDeadline(state, command.now)) return [];
  return [{ type: 'SupplierPaymentExpired', supplierPaymentId: state.terms.supplierPaymentId, expiredAt: command.now.toISOString() }];
};

const requireAwaiting = (state: SupplierPayment, action: string): Awaiting => {
  if (state.status === 'none') throw new Error('supplier payment does not exist');
  if (state.status !== 'awaiting_approval') throw new ServiceError('invalid_status', `the supplier payment is ${state.status} and cannot be ${action}`);
  return state;
};

/** Awaiting approval, not already being approved, and not past its approval deadline. */
const requireOpen = (state: SupplierPayment, now: Date, action: string): Awaiting => {
  const awaiting = requireAwaiting(state, action);
  if (awaiting.approval) throw new ServiceError('invalid_status', 'the supplier payment is already being approved');
  if (isPastDeadline(awaiting, now)) throw new ServiceError('invalid_status', `the approval deadline passed at ${awaiting.terms.expiresAt}; the payment cannot be ${action}`);
  return awaiting;
};

const isPastDeadline = (state: Awaiting, now: Date): boolean => now.getTime() >= Date.parse(state.terms.expiresAt);
