import { type AccountDeltas, type ExpectedMovements } from '@pay/contracts';
import type { Collection } from './collection';

/**
 * Where a collection's cash must stand in the ledger, net of every step so far: collected, it left
 * `platform:cash` for the carrier (in transit); counted at a cash point, what was counted sits there;
 * settled, only the gross that left `platform:cash` remains, paid to the wholesaler (net) and the platform (fee).
 */
export const expectedCollectionMovements = (state: Exclude<Collection, { status: 'none' }>): ExpectedMovements => {
  const { terms } = state;
  const cash = `platform:cash:${terms.currency}`;
  const transit = `platform:cash_in_transit:${terms.currency}`;
  const deltas: AccountDeltas = {};
  const set = (account: string, delta: number) => {
    if (delta !== 0) deltas[account] = delta;
  };
  switch (state.status) {
    case 'awaiting_collection':
      break;
    case 'collected_awaiting_deposit':
    case 'deposit_under_review': {
      const counted = state.deposit.amountReceived ?? 0;
      set(cash, -terms.amount);
      set(transit, terms.amount - counted);
      set(`${state.deposit.cashPoint}:${terms.currency}`, counted);
      break;
    }
    case 'settled':
      set(cash, -state.settlement.grossAmount);
      set(terms.beneficiaryConnection, state.settlement.netAmount);
      set(`platform:fees:${terms.currency}`, state.settlement.feeAmount);
      break;
  }
  return { objectId: terms.collectionId, byReference: Object.keys(deltas).length === 0 ? {} : { [terms.collectionId]: deltas } };
};
