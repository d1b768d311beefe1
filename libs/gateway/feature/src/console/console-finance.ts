import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { BalanceSeries, BankStatementImportResource, CashInTransitResource, ChainVerificationResource, FeeRevenueResource, LedgerAccountResource, LedgerHeadResource, ListResource, PayoutBatchResource, ReconciliationResource, StatementResource, TrialBalanceResource } from '@pay/contracts';
import { ZONE_OF_CURRENCY } from '@pay/hosted-ui';
import {
  CASH_IN_TRANSIT_COLLECTIONS_MAX,
  CONSOLE_CHART_SAMPLES,
  CONSOLE_LIST_MAX,
  CONSOLE_STATEMENT_CSV_LINES_MAX,
  LEDGER_CHAIN_VERIFY_TIMEOUT_MS,
  newId,
  PAYOUT_ADMIN_REQUEST_TIMEOUT_MS,
  STATEMENT_LIMIT_MAX,
  type Clock,
  type Currency,
} from '@pay/kernel';
import { CLOCK, inTransaction, PG_POOL } from '@pay/platform';
import { parseStatement } from '../admin/camt053';
import { runReconciliation } from '../admin/run-reconciliation';
import { onceKey } from '../audit/audited';
import { AuditLog } from '../directory/audit-log';
import { localInstant } from './charts';
import { auditedAction, CONSOLE_ACTOR } from './console-audit';

export type FinanceRunKind = 'reconciliation' | 'chain_verification';
export interface FinanceRun<Result> {
  result: Result;
  startedAt: string;
  finishedAt: string;
}

export interface MonthRevenue {
  /** First instant of the month (platform zone), and of the next one. */
  from: string;
  to: string;
  revenue: FeeRevenueResource;
}

/** Who acts in the console: the admin role, the only one that may. */

/** The zone whose calendar makes the fee revenue's months: the platform's. */
export const PLATFORM_ZONE = ZONE_OF_CURRENCY.DZD;

/**
 * The console's Accounts and Finance reads and actions, over the bus as the admin API's controllers
 * do (never another app's database, never HTTP to ourselves): works in both topologies. Finance runs
 * (a reconciliation, the chain's verification) are kept in the gateway's own table, so that finance
 * reads the latest result an admin ran.
 */
@Injectable()
export class ConsoleFinance {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  now(): string {
    return this.clock.now().toISOString();
  }

  accounts(filters: { kind?: string; currency?: string; startingAfter?: string }): Promise<ListResource<LedgerAccountResource>> {
    return this.bus.request('ledger.accounts.list', { limit: CONSOLE_LIST_MAX, ...filters });
  }

  /** Any account's balance as of `at` (movements with `created_at <= at`), and its currency; 404 for an unknown account. */
  async balanceAt(account: string, at: string): Promise<{ currency: Currency; balance: number }> {
    const balance = await this.bus.request('ledger.get-balance', { owner: account, asOf: at });
    return { currency: balance.currency as Currency, balance: balance.available };
  }

  statement(account: string, from: string, to: string, startingAfter?: string): Promise<StatementResource> {
    return this.bus.request('ledger.statement', { account, from, to, limit: CONSOLE_LIST_MAX, ...(startingAfter === undefined ? {} : { startingAfter }) });
  }

  /** The statement's lines from `from` to `to`, every page, up to CONSOLE_STATEMENT_CSV_LINES_MAX (then `complete` is false). */
  async statementLines(account: string, from: string, to: string): Promise<{ lines: StatementResource['lines']; complete: boolean }> {
    const lines: StatementResource['lines'] = [];
    for (let startingAfter: string | undefined; ; ) {
      const page = await this.bus.request('ledger.statement', { account, from, to, limit: STATEMENT_LIMIT_MAX, ...(startingAfter === undefined ? {} : { startingAfter }) });
      lines.push(...page.lines);
      if (!page.has_more) return { lines, complete: true };
      if (lines.length >= CONSOLE_STATEMENT_CSV_LINES_MAX) return { lines: lines.slice(0, CONSOLE_STATEMENT_CSV_LINES_MAX), complete: false };
      startingAfter = page.lines[page.lines.length - 1]!.entry;
    }
  }

  /** The balance over [from, to] for the chart: each movement when they are few, else CONSOLE_CHART_SAMPLES instants. */
  balanceSeries(account: string, from: string, to: string): Promise<BalanceSeries> {
    return this.bus.request('ledger.balance-series', { account, from, to, samples: CONSOLE_CHART_SAMPLES });
  }

  trialBalance(asOf?: string): Promise<TrialBalanceResource> {
    return this.bus.request('ledger.trial-balance', asOf === undefined ? {} : { asOf });
  }

  /** Fee revenue month by month (calendar months of the platform's zone), `months` of them ending with the month of `end`. */
  async feeRevenueByMonth(end: string, months: number): Promise<MonthRevenue[]> {
    const last = new Intl.DateTimeFormat('en-US-u-nu-latn', { timeZone: PLATFORM_ZONE, year: 'numeric', month: 'numeric' }).formatToParts(new Date(end));
    const [year, month] = [Number(last.find((p) => p.type === 'year')!.value), Number(last.find((p) => p.type === 'month')!.value)];
    const periods = Array.from({ length: months }, (_, i) => {
      const first = month - (months - 1) + i;
      return { from: new Date(localInstant(year, first, 1, 0, PLATFORM_ZONE)).toISOString(), to: new Date(localInstant(year, first + 1, 1, 0, PLATFORM_ZONE)).toISOString() };
    });
    return Promise.all(periods.map(async (period) => ({ ...period, revenue: await this.bus.request('ledger.fee-revenue', period) })));
  }

  /** What the admin API's cash in transit answers: the custody balances and the unsettled collections. */
  async cashInTransit(): Promise<CashInTransitResource> {
    const [custody, collections] = await Promise.all([this.bus.request('ledger.cash-custody', {}), this.bus.request('collections.unsettled', { limit: CASH_IN_TRANSIT_COLLECTIONS_MAX })]);
    return {
      ...custody,
      collections: collections.map((c) => ({ id: c.id, amount: c.amount, currency: c.currency, status: c.status, collected_at: c.collected_at, due_at: c.deposit?.due_at ?? null, overdue: c.deposit?.overdue ?? false, point: c.deposit?.point ?? null })),
    };
  }

  chainHead(): Promise<LedgerHeadResource> {
    return this.bus.request('ledger.chain.head', {});
  }

  payoutBatches(): Promise<PayoutBatchResource[]> {
    return this.bus.request('payments.payout-batches.list', { limit: CONSOLE_LIST_MAX });
  }

  batchFile(batchId: string): Promise<{ xml: string }> {
    return this.bus.request('payments.payout-batches.file', { batchId }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS });
  }

  statementImports(): Promise<(BankStatementImportResource & { created_at: string })[]> {
    return this.bus.request('payments.bank-statements.list', { limit: CONSOLE_LIST_MAX });
  }

  /**
   * A camt.053 statement as the admin API imports it (parsed here, applied by the payments app), and
   * audited as it is: an intent before the change is dispatched, settled by the answer or, after a
   * crash between the two, by the sweeper (which reads the import back), so recorded exactly once.
   */
  async importStatement(xml: string, requestId: string): Promise<BankStatementImportResource> {
    const { statementId, entries } = parseStatement(xml);
    const importId = newId('bankStatementImport');
    return auditedAction(
      this.audit,
      this.clock,
      {
        action: 'bank_statement_import.created',
        target: { object: 'bank_statement_import', id: importId },
        integrator: null,
        requestId,
        repeatable: false,
        // A statement imported before answers its first import: the answer's id is the one recorded.
        settled: (result) => ({ object: 'bank_statement_import', id: result.id }),
      },
      () => this.bus.request('payments.bank-statements.import', { importId, statementId, entries }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS }),
    );
  }

  async reconcile(requestId: string): Promise<ReconciliationResource> {
    const startedAt = this.clock.now();
    const result = await runReconciliation(this.bus);
    await this.recordRun('reconciliation', result, startedAt, requestId);
    return result;
  }

  async verifyChain(requestId: string): Promise<ChainVerificationResource> {
    const startedAt = this.clock.now();
    const result = await this.bus.request('ledger.chain.verify', {}, { timeoutMs: LEDGER_CHAIN_VERIFY_TIMEOUT_MS });
    await this.recordRun('chain_verification', result, startedAt, requestId);
    return result;
  }

  /** The latest run of `kind`, or null when none was run. */
  async latest<Result>(kind: FinanceRunKind): Promise<FinanceRun<Result> | null> {
    const { rows } = await this.pool.query<{ result: Result; started_at: Date; finished_at: Date }>({
      name: 'gw-console-finance-runs-latest',
      text: 'SELECT result, started_at, finished_at FROM gw_console_finance_runs WHERE kind = $1 ORDER BY id DESC LIMIT 1',
      values: [kind],
    });
    const row = rows[0];
    return row ? { result: row.result, startedAt: row.started_at.toISOString(), finishedAt: row.finished_at.toISOString() } : null;
  }

  /** The run's result, kept in the gateway, and its audit event, in one transaction: both or neither. */
  private async recordRun(kind: FinanceRunKind, result: object, startedAt: Date, requestId: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const runId = newId(kind === 'reconciliation' ? 'reconciliation' : 'chainVerification');
      await client.query({
        name: 'gw-console-finance-runs-record',
        text: 'INSERT INTO gw_console_finance_runs (kind, result, started_at, finished_at, run_id) VALUES ($1, $2, $3, $4, $5)',
        values: [kind, JSON.stringify(result), startedAt, this.clock.now(), runId],
      });
      const action = `${kind}.created`;
      const target = { object: kind, id: runId };
      await this.audit.record({ action, actor: CONSOLE_ACTOR, integrator: null, target, requestId, at: this.clock.now(), operationKey: onceKey(action, target.id) }, client);
    });
  }
}
