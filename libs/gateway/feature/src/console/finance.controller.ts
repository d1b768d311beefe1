import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ChainVerificationResource, type ReconciliationResource } from '@pay/contracts';
import { directionOf, localeOf, translator, type MessageKey } from '@pay/hosted-ui';
import { CONSOLE_FEE_MONTHS_DEFAULT, CONSOLE_FEE_MONTHS_MAX, CONSOLE_STATEMENT_XML_MAX_BYTES, ID_LENGTH_MAX, type Currency } from '@pay/kernel';
import { parseStatement } from '../admin/camt053';
import { formOf, redirect } from '../hosted/forms';
import type { AccountsFinanceViews, Link } from './accounts-finance';
import { barChart } from './charts';
import { ConsoleFinance, PLATFORM_ZONE } from './console-finance';
import { dateParam, dayEnd, localDate, monthParam, oneParam } from './console-dates';
import { ConsolePages } from './console-pages';
import { objectPath } from './console-paths';
import { ConsoleRole } from './console-role';
import type { ConsoleViews, Notice } from './console-views';

const BASE = '/console/finance';
const PAGES = [
  { href: BASE, label: 'console.finance.trial_title' },
  { href: `${BASE}/fee-revenue`, label: 'console.finance.fees_title' },
  { href: `${BASE}/cash-in-transit`, label: 'console.finance.cash_title' },
  { href: `${BASE}/reconciliation`, label: 'console.finance.reconciliation_title' },
  { href: `${BASE}/ledger-chain`, label: 'console.finance.chain_title' },
  { href: `${BASE}/payouts`, label: 'console.finance.payouts_title' },
] as const satisfies readonly { href: string; label: MessageKey }[];

/** The `?done=` notices after an action. */
const DONE: Readonly<Record<string, MessageKey>> = {
  reconciliation: 'console.finance.done_reconciliation',
  verification: 'console.finance.done_verification',
};

const BATCH_ID = new RegExp(`^pob_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** The trial balance's and fee revenue's calendar: the platform's (Algiers). */
const PLATFORM_CURRENCY: Currency = 'DZD';

/**
 * Finance: the trial balance, fee revenue by month, cash in transit, reconciliation, the ledger
 * chain, payout batches and statement imports. Both roles read; the actions (run a reconciliation,
 * verify the chain, download a batch's pain.001 with its IBANs, import a statement) are the admin's,
 * as in the admin API, each behind a confirmation step.
 */
@Controller('console/finance')
@ConsoleRole('admin', 'finance')
export class ConsoleFinanceController {
  constructor(
    private readonly pages: ConsolePages,
    private readonly finance: ConsoleFinance,
  ) {}

  @Get()
  async trialBalance(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const asOfDate = dateParam(query, 'as_of') ?? '';
    const now = this.finance.now();
    const asOf = asOfDate ? minIso(dayEnd(asOfDate, PLATFORM_CURRENCY, 'as_of'), now) : null;
    // as_of is inclusive: the day's end is the next day's start, less a millisecond.
    const trial = await this.finance.trialBalance(asOf ? new Date(Date.parse(asOf) - 1).toISOString() : undefined);
    return this.render(request, reply, 'console-finance-trial', BASE, 'console.finance.trial_title', {
      asOfDate,
      asOf,
      currencies: trial.currencies.map((c) => ({ currency: c.currency, totalDebits: c.total_debits, totalCredits: c.total_credits, balanced: c.total_debits === c.total_credits })),
    });
  }

  @Get('fee-revenue')
  async feeRevenue(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const monthsText = oneParam(query, 'months');
    const months = monthsText === undefined ? CONSOLE_FEE_MONTHS_DEFAULT : Number(monthsText);
    if (!Number.isInteger(months) || months < 1 || months > CONSOLE_FEE_MONTHS_MAX) throw new ServiceError('invalid_request', `months must be 1 to ${CONSOLE_FEE_MONTHS_MAX}`, 'months');
    const now = this.finance.now();
    const endText = monthParam(query, 'end') ?? localDate(now, PLATFORM_CURRENCY).slice(0, 7);
    const end = MONTH.exec(endText);
    if (!end) throw new ServiceError('invalid_request', 'end must be a month, MM/YYYY', 'end');
    const byMonth = await this.finance.feeRevenueByMonth(`${endText}-15T12:00:00Z`, months);
    const language = this.pages.language(request, reply);
    const t = translator(language);
    const monthLabel = new Intl.DateTimeFormat(localeOf(language, PLATFORM_CURRENCY), { month: 'short', year: 'numeric', timeZone: PLATFORM_ZONE });
    const labels = byMonth.map((m) => monthLabel.format(new Date(Date.parse(m.from) + 12 * 3_600_000)));
    const currencies = [...new Set(byMonth.flatMap((m) => m.revenue.currencies.map((c) => c.currency)))].sort();
    return this.render(request, reply, 'console-finance-fees', `${BASE}/fee-revenue`, 'console.finance.fees_title', {
      months,
      end: endText,
      monthsMax: CONSOLE_FEE_MONTHS_MAX,
      currencies: currencies.map((currency) => {
        const rows = byMonth.map((m, i) => {
          const c = m.revenue.currencies.find((x) => x.currency === currency);
          return { label: labels[i]!, total: c?.total ?? 0, payment: c?.by_use_case.payment ?? 0, cashPayment: c?.by_use_case.cash_payment ?? 0, supplierPayment: c?.by_use_case.supplier_payment ?? 0, settlement: c?.by_use_case.settlement ?? 0 };
        });
        return {
          currency,
          total: rows.reduce((sum, r) => sum + r.total, 0),
          rows,
          chart: barChart({
            id: `fees-${currency}`,
            title: t('console.finance.fees_chart_title', { currency }),
            description: t('console.finance.fees_chart_desc', { first: labels[0] ?? '', last: labels[labels.length - 1] ?? '' }),
            bars: rows.map((r) => ({ label: r.label, amount: r.total })),
            currency,
            language,
            rtl: directionOf(language) === 'rtl',
          }),
        };
      }),
    });
  }

  @Get('cash-in-transit')
  async cashInTransit(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const cash = await this.finance.cashInTransit();
    return this.render(request, reply, 'console-finance-cash', `${BASE}/cash-in-transit`, 'console.finance.cash_title', {
      currencies: cash.currencies.map((c) => ({ currency: c.currency, withCarriers: c.with_carriers, atCashPoints: c.at_cash_points })),
      collections: cash.collections.map((c) => ({ id: c.id, href: objectPath(c.id), amount: c.amount, currency: c.currency, status: c.status, collectedAt: c.collected_at, dueAt: c.due_at, overdue: c.overdue, point: c.point })),
    });
  }

  @Get('reconciliation')
  async reconciliation(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const run = await this.finance.latest<ReconciliationResource>('reconciliation');
    return this.render(request, reply, 'console-finance-reconciliation', `${BASE}/reconciliation`, 'console.finance.reconciliation_title', { run, confirm: wantsConfirm(query, request) }, query);
  }

  /** Compares the ledger with every object's history (admin only): may take a while on a large ledger. */
  @Post('reconciliation')
  @ConsoleRole('admin')
  async runReconciliation(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.finance.reconcile(String(request.id));
    return redirect(reply, `${BASE}/reconciliation?done=reconciliation`);
  }

  @Get('ledger-chain')
  async chain(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const [head, verification] = await Promise.all([this.finance.chainHead(), this.finance.latest<ChainVerificationResource>('chain_verification')]);
    return this.render(request, reply, 'console-finance-chain', `${BASE}/ledger-chain`, 'console.finance.chain_title', { head, verification, confirm: wantsConfirm(query, request) }, query);
  }

  @Post('ledger-chain/verify')
  @ConsoleRole('admin')
  async verifyChain(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.finance.verifyChain(String(request.id));
    return redirect(reply, `${BASE}/ledger-chain?done=verification`);
  }

  @Get('payouts')
  async payouts(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.payoutsPage(request, reply, { review: null, imported: null, notice: null });
  }

  /** The pain.001 file holds the creditors' full IBANs: the admin's, as GET /admin/v1/payout_batches/{id}/file. */
  @Get('payouts/batches/:id/file')
  @ConsoleRole('admin')
  async batchFile(@Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (!BATCH_ID.test(id)) throw new ServiceError('resource_not_found', `no payout batch ${id.slice(0, 100)}`);
    const { xml } = await this.finance.batchFile(id);
    void reply
      .header('Content-Type', 'application/xml; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${id}.xml"`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff');
    return xml;
  }

  /**
   * A camt.053 statement pasted in the form: first read and shown for confirmation (`step=review`),
   * then applied (`step=apply`), as POST /admin/v1/bank_statements does.
   */
  @Post('payouts/statements')
  @ConsoleRole('admin')
  async importStatement(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(body)!;
    const xml = (form.get('statement') ?? '').trim();
    const step = form.get('step');
    const send = async (state: Pick<AccountsFinanceViews['console-finance-payouts'], 'review' | 'imported' | 'notice'>, status = 200) => {
      void reply.send(await this.payoutsPage(request, reply, state, status));
    };
    if (xml === '') return send({ review: null, imported: null, notice: { kind: 'error', key: 'console.finance.import_empty' } }, 400);
    try {
      if (Buffer.byteLength(xml) > CONSOLE_STATEMENT_XML_MAX_BYTES) {
        throw new ServiceError('invalid_request', `the statement is larger than ${CONSOLE_STATEMENT_XML_MAX_BYTES.toLocaleString('en-US')} bytes: import it with POST /admin/v1/bank_statements`);
      }
      if (step !== 'apply') {
        const parsed = parseStatement(xml);
        return send({ review: { statementId: parsed.statementId, entries: parsed.entries.length, xml }, imported: null, notice: null });
      }
      const imported = await this.finance.importStatement(xml, String(request.id));
      return send({ review: null, imported, notice: { kind: 'success', key: imported.duplicate ? 'console.finance.import_duplicate' : 'console.finance.import_done', params: { paid: imported.paid, failed: imported.failed, unmatched: imported.unmatched.length } } });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'invalid_request') {
        return send({ review: null, imported: null, notice: { kind: 'error', key: 'console.finance.import_invalid', params: { reason: error.message.slice(0, 300) } } }, 400);
      }
      throw error;
    }
  }

  private async payoutsPage(request: FastifyRequest, reply: FastifyReply, state: Pick<AccountsFinanceViews['console-finance-payouts'], 'review' | 'imported' | 'notice'>, status = 200): Promise<string> {
    const [batches, imports] = await Promise.all([this.finance.payoutBatches(), this.finance.statementImports()]);
    return this.render(
      request,
      reply,
      'console-finance-payouts',
      `${BASE}/payouts`,
      'console.finance.payouts_title',
      {
        batches: batches.map((b) => ({ id: b.id, currency: b.currency, count: b.count, total: b.total_amount, createdAt: b.created_at, fileHref: b.count > 0 ? `${BASE}/payouts/batches/${encodeURIComponent(b.id)}/file` : null })),
        imports,
        review: state.review,
        imported: state.imported,
        xmlMax: CONSOLE_STATEMENT_XML_MAX_BYTES,
      },
      undefined,
      state.notice,
      status,
    );
  }

  private render<View extends Exclude<keyof AccountsFinanceViews, 'console-accounts' | 'console-account'>>(
    request: FastifyRequest,
    reply: FastifyReply,
    view: View,
    current: string,
    title: MessageKey,
    model: Omit<AccountsFinanceViews[View], 'financeNav' | 'notice'>,
    query?: unknown,
    notice?: Notice | null,
    status = 200,
  ): string {
    const done = oneParamSafe(query, 'done');
    const financeNav: Link[] = PAGES.map((p) => ({ href: p.href, label: p.label, current: p.href === current }));
    const shown = notice ?? (done && Object.hasOwn(DONE, done) ? { kind: 'success' as const, key: DONE[done]! } : null);
    return this.pages.render(request, reply, view, { ...model, financeNav, notice: shown } as unknown as ConsoleViews[View], { title: [title], section: 'finance', status });
  }
}

const minIso = (a: string, b: string): string => (a < b ? a : b);
const wantsConfirm = (query: unknown, _request?: FastifyRequest): boolean => oneParamSafe(query, 'confirm') === '1';
/** A notice's or a confirmation's parameter: anything unexpected is ignored, never an error page. */
const oneParamSafe = (query: unknown, name: string): string | undefined => {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};
