import type { ExecuteTransfer } from '@pay/contracts';
import { newId } from '@pay/kernel';

/** A Pay payment's ledger transfer in DZD (fee deducted), with fresh operation and reference ids; `changes` override any field. */
export const paymentTransfer = (debitOwner: string, creditOwner: string, amount: number, changes: Partial<ExecuteTransfer> = {}): ExecuteTransfer => ({
  operationId: newId('payment'),
  reference: newId('payment'),
  useCase: 'payment',
  feeMode: 'deducted',
  debitOwner,
  creditOwner,
  amount,
  currency: 'DZD',
  ...changes,
});
