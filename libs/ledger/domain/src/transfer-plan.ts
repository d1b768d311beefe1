import { computeFee, isCurrency, isValidAmount, LEDGER_ID_LENGTH_MAX } from '@pay/kernel';
import { type CashMovementKind, type CreateTopup, type ExecuteTransfer, type FeeUseCase, type PayoutKind, ServiceError, type TransferUseCase } from '@pay/contracts';
import { isPlatformAccount, platformAccount } from './accounts';
import { FEE_USE_CASES, type FeeSchedule } from './fee-schedule';
import { assertBalanced, type Posting } from './postings';

export interface TransferPlan {
  postings: Posting[];
  feeAmount: number;
  netAmount: number;
  /** What leaves the payer: `amount` (fee deducted) or `amount + fee` (fee added). */
  debitedAmount: number;
}

export interface TopupPlan {
  postings: Posting[];
}

const requireId = (value: unknown, param: string): void => {
  if (typeof value !== 'string' || value.length === 0 || value.length > LEDGER_ID_LENGTH_MAX) {
    throw new ServiceError('invalid_request', `${param} must be a string of 1 to ${LEDGER_ID_LENGTH_MAX} characters`, param);
  }
};

const requireAmountAndCurrency = (amount: unknown, currency: unknown): void => {
  if (!isValidAmount(amount)) throw new ServiceError('invalid_amount', 'amount must be a positive integer in minor units', 'amount');
  if (!isCurrency(currency)) throw new ServiceError('unsupported_currency', 'currency must be DZD, MAD, TND or XOF', 'currency');
};

export const CASH_MOVEMENT_KINDS = ['cash_handover', 'cash_deposit', 'cash_write_off'] as const satisfies readonly CashMovementKind[];

const isFeeUseCase = (useCase: TransferUseCase): useCase is FeeUseCase => (FEE_USE_CASES as readonly string[]).includes(useCase);
const isCashMovement = (useCase: TransferUseCase): useCase is CashMovementKind => (CASH_MOVEMENT_KINDS as readonly string[]).includes(useCase);
export const PAYOUT_KINDS = ['payout', 'payout_reversal', 'payout_paid'] as const satisfies readonly PayoutKind[];
const isPayout = (useCase: TransferUseCase): useCase is PayoutKind => (PAYOUT_KINDS as readonly string[]).includes(useCase);
/** Movements without a fee rule of their own: they take feeMode none. */
const isFeeless = (useCase: TransferUseCase): boolean => isCashMovement(useCase) || useCase === 'refund' || isPayout(useCase);

const checkTransfer = (request: ExecuteTransfer): void => {
  for (const param of ['operationId', 'reference', 'debitOwner', 'creditOwner'] as const) requireId(request[param], param);
  if (!isFeeUseCase(request.useCase) && !isFeeless(request.useCase)) throw new ServiceError('invalid_request', 'unknown useCase', 'useCase');
  if (request.feeMode !== 'deducted' && request.feeMode !== 'added' && request.feeMode !== 'none') {
    throw new ServiceError('invalid_request', 'feeMode must be deducted, added or none', 'feeMode');
  }
  // A cash movement moves the cash itself, whole; a refund returns money, and the platform keeps its fee.
  if (isFeeless(request.useCase) && request.feeMode !== 'none') throw new ServiceError('invalid_request', `a ${request.useCase} takes feeMode none`, 'feeMode');
  if (request.debitOwner === request.creditOwner) throw new ServiceError('invalid_request', 'an account cannot pay itself', 'creditOwner');
  requireAmountAndCurrency(request.amount, request.currency);
};

/**
 * The postings of a transfer, its fee going to the platform's fee account (a zero fee posts nothing).
 * feeMode `none` charges no fee whatever the schedule says.
 */
export const planTransfer = (request: ExecuteTransfer, schedule: FeeSchedule): TransferPlan => {
  checkTransfer(request);
  const { amount, currency, useCase } = request;
  const feeAmount = request.feeMode === 'none' || !isFeeUseCase(useCase) ? 0 : computeFee(amount, schedule[useCase][currency]).feeMinor;
  const debitedAmount = request.feeMode === 'deducted' ? amount : amount + feeAmount;
  const credited = request.feeMode === 'deducted' ? amount - feeAmount : amount;
  const candidates: Posting[] = [
    { account: request.debitOwner, direction: 'debit', amount: debitedAmount, currency },
    { account: request.creditOwner, direction: 'credit', amount: credited, currency },
    { account: platformAccount('fees', currency), direction: 'credit', amount: feeAmount, currency },
  ];
  const postings = candidates.filter((posting) => posting.amount > 0);
  assertBalanced(postings);
  return { postings, feeAmount, netAmount: amount - feeAmount, debitedAmount };
};

/** A top-up moves money from the platform's funding account (which may go negative) to the owner. */
export const planTopup = (request: CreateTopup): TopupPlan => {
  requireId(request.topupId, 'topupId');
  requireId(request.owner, 'owner');
  if (isPlatformAccount(request.owner)) throw new ServiceError('invalid_request', 'a platform account cannot be topped up', 'owner');
  requireAmountAndCurrency(request.amount, request.currency);
  const postings: Posting[] = [
    { account: platformAccount('funding', request.currency), direction: 'debit', amount: request.amount, currency: request.currency },
    { account: request.owner, direction: 'credit', amount: request.amount, currency: request.currency },
  ];
  assertBalanced(postings);
  return { postings };
};
