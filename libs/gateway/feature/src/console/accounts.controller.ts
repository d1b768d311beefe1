import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import { notFound, ServiceError } from '@pay/contracts';
import { directionOf, translator } from '@pay/hosted-ui';
import { CURRENCIES, type Currency } from '@pay/kernel';
import { ACCOUNT_ID, ACCOUNT_KINDS } from '../admin/finance.controller';
import { balanceChart } from './charts';
import { ConsoleFinance } from './console-finance';
import { dateParam, dayEnd, dayStart, displayDate, localDate, oneParam } from './console-dates';
import { ConsolePages } from './console-pages';
import { accountPath, kindOfId, objectPath } from './console-paths';
import { ConsoleRole } from './console-role';
import type { AccountsFinanceViews } from './accounts-finance';

/** The chart's and the statement's period when none is asked: the last 30 days. */
const DEFAULT_PERIOD_DAYS = 30;

/**
 * Accounts: the chart of accounts (filters kind and currency), and an account's page: its balance now
 * and as of a date, a chart of its balance over a period, the period's statement page by page, and
 * the statement as CSV (the admin API's columns). Reads only: both roles.
 */
@Controller('console/accounts')
@ConsoleRole('admin', 'finance')
export class ConsoleAccountsController {
  constructor(
    private readonly pages: ConsolePages,
    private readonly finance: ConsoleFinance,
  ) {}

  @Get()
  async list(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const kind = oneParam(query, 'kind') ?? '';
    const currency = oneParam(query, 'currency') ?? '';
    const after = oneParam(query, 'after');
    if (kind !== '' && !(ACCOUNT_KINDS as readonly string[]).includes(kind)) throw new ServiceError('invalid_request', 'unknown kind', 'kind');
    if (currency !== '' && !(CURRENCIES as readonly string[]).includes(currency)) throw new ServiceError('invalid_request', 'unknown currency', 'currency');
    if (after !== undefined && !ACCOUNT_ID.test(after)) throw new ServiceError('invalid_request', 'after must be an account id', 'after');
    const page = await this.finance.accounts({ ...(kind ? { kind } : {}), ...(currency ? { currency } : {}), ...(after === undefined ? {} : { startingAfter: after }) });
    const last = page.data[page.data.length - 1];
    const next = page.has_more && last ? `/console/accounts?${new URLSearchParams({ ...(kind ? { kind } : {}), ...(currency ? { currency } : {}), after: last.id }).toString()}` : null;
    const model: AccountsFinanceViews['console-accounts'] = {
      kind,
      currency,
      kinds: ACCOUNT_KINDS,
      currencies: CURRENCIES,
      accounts: page.data.map((a) => ({ id: a.id, href: accountPath(a.id), kind: a.kind, currency: a.currency as Currency, balance: a.balance, createdAt: a.created_at })),
      next,
    };
    return this.pages.render(request, reply, 'console-accounts', model, { title: ['console.accounts.title'], section: 'accounts' });
  }

  @Get(':id')
  async account(@Param('id') id: string, @Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const account = checkAccount(id);
    const now = this.finance.now();
    const { currency, balance: balanceNow } = await this.finance.balanceAt(account, now);
    const { fromDate, toDate, from, to } = period(query, currency, now);
    const asOfDate = dateParam(query, 'as_of') ?? '';
    const after = oneParam(query, 'after');
    const asOfAt = asOfDate ? minIso(dayEnd(asOfDate, currency, 'as_of'), now) : null;
    const [asOf, series, statement] = await Promise.all([
      asOfAt ? this.finance.balanceAt(account, new Date(Date.parse(asOfAt) - 1).toISOString()).then((b) => ({ at: asOfAt, balance: b.balance })) : Promise.resolve(null),
      this.finance.balanceSeries(account, from, to),
      this.finance.statement(account, from, to, after),
    ]);
    const language = this.pages.language(request, reply);
    const t = translator(language);
    const rtl = directionOf(language) === 'rtl';
    const base = { ...(asOfDate ? { as_of: asOfDate } : {}), from: fromDate, to: toDate };
    const last = statement.lines[statement.lines.length - 1];
    const model: AccountsFinanceViews['console-account'] = {
      id: account,
      currency,
      now,
      balanceNow,
      asOfDate,
      asOf,
      from: fromDate,
      to: toDate,
      chart: balanceChart({
        id: 'balance-chart',
        title: t('console.accounts.chart_title', { account }),
        description: t('console.accounts.chart_desc', { from: displayDate(fromDate), to: displayDate(toDate) }),
        from,
        to,
        opening: series.opening,
        points: series.points,
        currency,
        language,
        rtl,
      }),
      sampled: series.sampled,
      // The summary is the period's (the series reads it), not the shown page's: a page's own figures
      // are its lines' running balances.
      statement: {
        opening: series.opening,
        closing: series.closing,
        totalDebits: series.totalDebits,
        totalCredits: series.totalCredits,
        hasMore: statement.has_more,
        lines: statement.lines.map((l) => ({
          entry: l.entry,
          reference: l.reference,
          referenceHref: kindOfId(l.reference) ? objectPath(l.reference) : null,
          kind: l.kind,
          createdAt: l.created_at,
          direction: l.direction,
          amount: l.amount,
          balanceAfter: l.balance_after,
        })),
      },
      next: statement.has_more && last ? `${accountPath(account)}?${new URLSearchParams({ ...base, after: last.entry }).toString()}#statement` : null,
      first: after !== undefined ? `${accountPath(account)}?${new URLSearchParams(base).toString()}#statement` : null,
      csvHref: `${accountPath(account)}/statement.csv?${new URLSearchParams({ from: fromDate, to: toDate }).toString()}`,
      notice: null,
    };
    return this.pages.render(request, reply, 'console-account', model, { title: ['console.accounts.account_title', { account }], section: 'accounts' });
  }

  /** Every line of the period (up to a bound), in the admin API's CSV columns. */
  @Get(':id/statement.csv')
  async statementCsv(@Param('id') id: string, @Query() query: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const account = checkAccount(id);
    const now = this.finance.now();
    const { currency } = await this.finance.balanceAt(account, now);
    const { fromDate, toDate, from, to } = period(query, currency, now);
    const { lines, complete } = await this.finance.statementLines(account, from, to);
    const name = `statement-${account.replace(/[^A-Za-z0-9_-]/g, '-')}-${fromDate}-${toDate}.csv`;
    void reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${name}"`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff');
    // A download cut at the bound says so in a header: a file that looks whole but is not would mislead.
    if (!complete) void reply.header('X-Statement-Truncated', 'true');
    return stringify([['entry', 'reference', 'kind', 'created_at', 'direction', 'amount', 'balance_after'], ...lines.map((l) => [l.entry, l.reference, l.kind, l.created_at, l.direction, l.amount, l.balance_after])]);
  }
}

const checkAccount = (id: string): string => {
  if (!ACCOUNT_ID.test(id)) throw notFound('account', id.slice(0, 100));
  return id;
};

const minIso = (a: string, b: string): string => (a < b ? a : b);

/** The period asked (`from`, `to`: local dates, both days included), else the last 30 days to today. */
function period(query: unknown, currency: Currency, now: string): { fromDate: string; toDate: string; from: string; to: string } {
  const toDate = dateParam(query, 'to') ?? localDate(now, currency);
  const fromDate = dateParam(query, 'from') ?? localDate(dayStart(toDate, currency, 'to'), currency, -(DEFAULT_PERIOD_DAYS - 1));
  const [from, to] = [dayStart(fromDate, currency, 'from'), dayEnd(toDate, currency, 'to')];
  if (from >= to) throw new ServiceError('invalid_request', 'from must be before to', 'from');
  return { fromDate, toDate, from, to };
}
