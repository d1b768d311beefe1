import type { AccountsFinanceKey } from './accounts-finance.fr';

/**
 * The console's Accounts and Finance sections' messages (`console.accounts.*`, `console.finance.*`),
 * typed from the French ones.
 */
export const accountsFinanceEn: Readonly<Record<AccountsFinanceKey, string>> = {
  'console.accounts.title': 'Accounts',
  'console.finance.title': 'Finance',
};
