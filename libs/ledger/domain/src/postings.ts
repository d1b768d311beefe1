import { type PostingResource } from '@pay/contracts';

/** One side of a journal entry; `account` is the account id. */
export type Posting = PostingResource;

/** The invariant of double entry, asserted on every plan: debits equal credits, every amount positive. */
export const assertBalanced = (postings: readonly Posting[]): void => {
  let debits = 0;
  let credits = 0;
  for (const posting of postings) {
    if (!Number.isSafeInteger(posting.amount) || posting.amount <= 0) throw new Error(`posting amount ${posting.amount} is not a positive integer`);
    if (posting.currency !== postings[0]?.currency) throw new Error('an entry mixes currencies');
    if (posting.direction === 'debit') debits += posting.amount;
    else credits += posting.amount;
  }
  if (postings.length < 2 || debits !== credits) throw new Error(`unbalanced entry: debits ${debits}, credits ${credits}`);
};

/** How much each account's balance moves: credits raise it, debits lower it. */
export const balanceDeltas = (postings: readonly Posting[]): Map<string, number> => {
  const deltas = new Map<string, number>();
  for (const { account, direction, amount } of postings) {
    deltas.set(account, (deltas.get(account) ?? 0) + (direction === 'credit' ? amount : -amount));
  }
  return deltas;
};

/**
 * Each posting's account balance right after it, from the balances before the entry (the accounts are
 * locked): what a balance transaction shows as `balance_after`.
 */
export const balancesAfter = (postings: readonly Posting[], before: ReadonlyMap<string, number>): number[] => {
  const running = new Map(before);
  return postings.map(({ account, direction, amount }) => {
    const balance = (running.get(account) ?? 0) + (direction === 'credit' ? amount : -amount);
    running.set(account, balance);
    return balance;
  });
};
