import type { CollectionDepositResource, CollectionResource } from '@pay/contracts';
import type { Collection } from './collection';

type Existing = Exclude<Collection, { status: 'none' }>;

/**
 * The collection as the API shows it at `now` (the service clock): `deposit.overdue` is computed on
 * read, true while `now` is past `due_at` and no deposit is validated. A settlement under way is not
 * visible yet: the collection keeps its deposit-stage status until the credit is recorded.
 */
export const toCollectionResource = (state: Existing, now: Date): CollectionResource => {
  const { terms } = state;
  return {
    id: terms.collectionId,
    object: 'collection',
    status: state.status,
    amount: terms.amount,
    currency: terms.currency,
    order_reference: terms.orderReference,
    beneficiary_connection: terms.beneficiaryConnection,
    collected_at: state.status === 'awaiting_collection' ? null : state.deposit.collectedAt,
    deposit: toDeposit(state, now),
    settlement:
      state.status === 'settled'
        ? {
            gross_amount: state.settlement.grossAmount,
            fee_amount: state.settlement.feeAmount,
            net_amount: state.settlement.netAmount,
            currency: terms.currency,
            settled_at: state.settlement.settledAt,
          }
        : null,
    created_at: terms.createdAt,
  };
};

const toDeposit = (state: Existing, now: Date): CollectionDepositResource | null => {
  if (state.status === 'awaiting_collection') return null;
  const { deposit } = state;
  const validatedAt = state.status === 'settled' ? state.validation.validatedAt : null;
  return {
    point: deposit.cashPoint,
    due_at: deposit.dueAt,
    overdue: validatedAt === null && now.getTime() > Date.parse(deposit.dueAt),
    deposited_late: validatedAt !== null && Date.parse(validatedAt) > Date.parse(deposit.dueAt),
    amount_expected: state.terms.amount,
    amount_received: deposit.amountReceived,
    validated_at: validatedAt,
  };
};
