import { topicsOf, type MessageKeys } from './common';

/**
 * Reconciliation: what each object's own history says must have moved in the ledger, by journal
 * reference (the object's id, or a refund's), as signed changes per account (+ credit, − debit).
 */
export type AccountDeltas = Record<string, number>;

export interface ExpectedMovements {
  objectId: string;
  /** reference → account → signed change; an object with nothing moved has none. */
  byReference: Record<string, AccountDeltas>;
}

/** Pages of one app's objects, in its projection's order. */
export interface ExpectedMovementsRequest {
  afterSeq: string | null;
  limit: number;
}

export interface ExpectedMovementsPage {
  items: ExpectedMovements[];
  /** The cursor of the next page; null after the last one. */
  nextAfterSeq: string | null;
}

/** What the ledger moved, by reference, top-ups aside (they belong to no object). */
export interface LedgerMovementsPage {
  byReference: Record<string, AccountDeltas>;
  nextAfterReference: string | null;
}

export interface ReconciliationTopics {
  'payments.expected-movements': { request: ExpectedMovementsRequest; reply: ExpectedMovementsPage };
  'cash.expected-movements': { request: ExpectedMovementsRequest; reply: ExpectedMovementsPage };
  'supplier-payments.expected-movements': { request: ExpectedMovementsRequest; reply: ExpectedMovementsPage };
  'collections.expected-movements': { request: ExpectedMovementsRequest; reply: ExpectedMovementsPage };
  'ledger.movements': { request: { afterReference: string | null; limit: number }; reply: LedgerMovementsPage };
}

/** Pages of every object or movement: about no entity, so a random key each. */
export const RECONCILIATION_MESSAGE_KEYS = {
  'payments.expected-movements': null,
  'cash.expected-movements': null,
  'supplier-payments.expected-movements': null,
  'collections.expected-movements': null,
  'ledger.movements': null,
} as const satisfies MessageKeys<ReconciliationTopics>;

/** Each served by the app its name starts with (topics.ts). */
export const RECONCILIATION_TOPICS = topicsOf(RECONCILIATION_MESSAGE_KEYS);

/** The signed changes of a movement of `amount` from one account to another, with a fee to the platform. */
export const movement = (debit: string, credit: string, credited: number, debited: number, fee: number, currency: string): AccountDeltas => {
  const deltas: AccountDeltas = {};
  const add = (account: string, delta: number) => {
    if (delta !== 0) deltas[account] = (deltas[account] ?? 0) + delta;
  };
  add(debit, -debited);
  add(credit, credited);
  add(`platform:fees:${currency}`, fee);
  return deltas;
};
