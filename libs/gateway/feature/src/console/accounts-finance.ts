import type { MessageKey } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';
import type { BankStatementImportResource, ChainVerificationResource, LedgerHeadResource, ReconciliationResource } from '@pay/contracts';
import type { BarChartModel, LineChartModel } from './charts';
import type { FinanceRun } from './console-finance';
import type { Notice } from './console-notice';

/* The view models of the console's Accounts and Finance sections (their controllers are wired in console.module.ts). */

export interface Link {
  href: string;
  label: MessageKey;
  current: boolean;
}

export interface AccountRow {
  id: string;
  href: string;
  kind: string;
  currency: Currency;
  balance: number;
  createdAt: string;
}

export interface StatementLineRow {
  entry: string;
  reference: string;
  /** The object's console page when the reference is an object id. */
  referenceHref: string | null;
  kind: string;
  createdAt: string;
  direction: 'debit' | 'credit';
  amount: number;
  balanceAfter: number;
}

/** The finance pages' sub-navigation, on each of them. */
interface FinancePage {
  financeNav: Link[];
  notice: Notice | null;
}

/** The Accounts and Finance templates' models (`views/console/console-<name>.eta`). */
export interface AccountsFinanceViews {
  'console-accounts': {
    kind: string;
    currency: string;
    kinds: readonly string[];
    currencies: readonly Currency[];
    accounts: AccountRow[];
    /** The next page's address, when there is one. */
    next: string | null;
  };
  'console-account': {
    id: string;
    currency: Currency;
    now: string;
    balanceNow: number;
    /** The date asked (YYYY-MM-DD, the currency's local calendar), and the balance at that day's end. */
    asOfDate: string;
    asOf: { at: string; balance: number } | null;
    from: string;
    to: string;
    /** The balance chart, placed by charts.ts, drawn by the template. */
    chart: LineChartModel;
    sampled: boolean;
    statement: { opening: number; closing: number; totalDebits: number; totalCredits: number; lines: StatementLineRow[]; hasMore: boolean };
    next: string | null;
    first: string | null;
    csvHref: string;
    notice: Notice | null;
  };
  'console-finance-trial': FinancePage & {
    asOfDate: string;
    asOf: string | null;
    currencies: { currency: Currency; totalDebits: number; totalCredits: number; balanced: boolean }[];
  };
  'console-finance-fees': FinancePage & {
    months: number;
    end: string;
    monthsMax: number;
    currencies: { currency: Currency; chart: BarChartModel; total: number; rows: { label: string; total: number; payment: number; cashPayment: number; supplierPayment: number; settlement: number }[] }[];
  };
  'console-finance-cash': FinancePage & {
    currencies: { currency: Currency; withCarriers: number; atCashPoints: number }[];
    collections: { id: string; href: string; amount: number; currency: Currency; status: string; collectedAt: string | null; dueAt: string | null; overdue: boolean; point: string | null }[];
  };
  'console-finance-reconciliation': FinancePage & { run: FinanceRun<ReconciliationResource> | null; confirm: boolean };
  'console-finance-chain': FinancePage & { head: LedgerHeadResource; verification: FinanceRun<ChainVerificationResource> | null; confirm: boolean };
  'console-finance-payouts': FinancePage & {
    batches: { id: string; currency: Currency; count: number; total: number; createdAt: string; fileHref: string | null }[];
    imports: (BankStatementImportResource & { created_at: string })[];
    /** A statement read and waiting for the admin's confirmation. */
    review: { statementId: string; entries: number; xml: string } | null;
    /** The last import's result, right after it. */
    imported: BankStatementImportResource | null;
    xmlMax: number;
  };
}
