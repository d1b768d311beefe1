import { ServiceError } from '@pay/contracts';
import { type Currency } from '@pay/kernel';
import { allowsNegativeBalance } from './accounts';
import { balancesAfter } from './postings';
import { type TransferPlan } from './transfer-plan';

/** An account as the transaction that moves it locked it. */
export interface AccountState {
  id: string;
  currency: Currency;
  balance: number;
  allowNegative: boolean;
}

export const currencyMismatch = (owner: string, accountCurrency: string, currency: string): ServiceError =>
  new ServiceError('currency_mismatch', `the account of ${owner} is in ${accountCurrency}, not ${currency}`, 'currency');

/** Every account of a transfer must exist and hold the transfer's currency. */
export const checkParty = (account: AccountState | undefined, id: string, currency: Currency): void => {
  if (!account) throw new ServiceError('invalid_request', `no ledger account for '${id}'`);
  if (account.currency !== currency) throw currencyMismatch(id, account.currency, currency);
  if (account.allowNegative !== allowsNegativeBalance(id)) throw new Error(`account ${id} has the wrong allow_negative flag`);
};

/** What a transfer needs to be decided: its payer, its currency and its postings. */
export interface TransferToDecide {
  debitOwner: string;
  currency: Currency;
  plan: TransferPlan;
}

export type TransferDecision =
  /** Its postings apply; `balancesAfter[i]` is the balance of posting i's account right after it. */
  | { decision: 'applied'; balancesAfter: number[] }
  /** The payer would go below zero: nothing moves. */
  | { decision: 'rejected' }
  /** A party is missing or in another currency: the transfer fails alone, as if never asked. */
  | { decision: 'refused'; error: Error };

/**
 * Decides transfers one after the other against running balances, exactly as if each ran alone in
 * that order: a transfer sees the balances its predecessors left, one that would overdraw its payer is
 * rejected alone and the others go on. Returns each decision and the accounts' final balances.
 */
export function decideInOrder(
  transfers: readonly TransferToDecide[],
  locked: ReadonlyMap<string, AccountState>,
): { decisions: TransferDecision[]; balances: Map<string, number> } {
  const balances = new Map([...locked].map(([id, account]) => [id, account.balance]));
  const decisions = transfers.map((transfer): TransferDecision => {
    try {
      for (const posting of transfer.plan.postings) checkParty(locked.get(posting.account), posting.account, transfer.currency);
    } catch (error) {
      return { decision: 'refused', error: error as Error };
    }
    const payer = locked.get(transfer.debitOwner) as AccountState;
    if (!payer.allowNegative && (balances.get(payer.id) as number) < transfer.plan.debitedAmount) return { decision: 'rejected' };
    const after = balancesAfter(transfer.plan.postings, balances);
    transfer.plan.postings.forEach((posting, i) => balances.set(posting.account, after[i] as number));
    // The negative space: only the payer is debited, and it was checked above; a posting that still takes
    // an account below zero is a bug, and fails the whole batch (the database's CHECK would too).
    for (const { account } of transfer.plan.postings) {
      if (!locked.get(account)!.allowNegative && (balances.get(account) as number) < 0) throw new Error(`account ${account} would go below zero`);
    }
    return { decision: 'applied', balancesAfter: after };
  });
  return { decisions, balances };
}
