import type { Provider, Type } from '@nestjs/common';

/**
 * The console's Accounts and Finance sections: their controllers, providers and view models, wired
 * into the console by console.module.ts. Kept in a file of their own, beside the search, object and
 * operations pages, so that both parts grow without touching each other's files.
 */
export const ACCOUNTS_FINANCE_CONTROLLERS: Type[] = [];
export const ACCOUNTS_FINANCE_PROVIDERS: Provider[] = [];

/** The Accounts and Finance templates' models (`views/console/console-<name>.eta`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AccountsFinanceViews {}
