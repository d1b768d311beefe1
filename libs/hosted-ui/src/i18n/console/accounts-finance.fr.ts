/**
 * The console's Accounts and Finance sections' messages (`console.accounts.*`, `console.finance.*`),
 * the reference for the other languages.
 */
export const accountsFinanceFr = {
  'console.accounts.title': 'Comptes',
  'console.finance.title': 'Finance',
};

export type AccountsFinanceKey = keyof typeof accountsFinanceFr;
