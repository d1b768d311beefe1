import type { Pool } from 'pg';
import {
  notFound,
  ServiceError,
  type BalanceSeries,
  type BalanceSeriesRequest,
  type CashInTransitResource,
  type FeeRevenueResource,
  type JournalEntryResource,
  type LedgerMovementsPage,
  type LedgerAccountResource,
  type ListLedgerAccounts,
  type ListResource,
  type Period,
  type PostingResource,
  type StatementLineResource,
  type StatementRequest,
  type StatementResource,
  type TrialBalanceResource,
} from '@pay/contracts';
import { BALANCE_SERIES_MOVEMENTS_MAX, BALANCE_SERIES_SAMPLES_MAX, iso, type Currency } from '@pay/kernel';
import { FEE_ACCOUNTS } from './ledger.store';

/**
 * What finance reads from the ledger: accounts, balances and the trial balance as of a time,
 * statements, entries by account and period, fee revenue and cash custody. Every query walks an index
 * on (account, time) or (account, order); none scans the postings of other accounts.
 */
export class FinanceReads {
  constructor(private readonly pool: Pool) {}

  async accounts(query: ListLedgerAccounts): Promise<ListResource<LedgerAccountResource>> {
    const values: unknown[] = [query.kind ?? null, query.currency ?? null];
    let cursor = '';
    if (query.startingAfter !== undefined) {
      // An account the filters leave out is not an id of this list (contract section 2).
      const { rows } = await this.pool.query('SELECT 1 FROM ledger_accounts WHERE id = $3 AND ($1::text IS NULL OR kind = $1) AND ($2::text IS NULL OR currency = $2)', [...values, query.startingAfter]);
      if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
      values.push(query.startingAfter);
      // The cursor's time is compared as stored (microseconds: the platform's accounts take a migration's
      // now()), never through a JS Date (milliseconds), which would pass over the rest of its millisecond.
      // A row of a scalar sub-select and the id (not a row sub-select): a row comparison the index serves.
      cursor = 'AND (created_at, id) < ((SELECT created_at FROM ledger_accounts WHERE id = $3), $3)';
    }
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<{ id: string; kind: string; currency: Currency; balance: string; created_at: Date }>(
      `SELECT id, kind, currency, balance, created_at FROM ledger_accounts
       WHERE ($1::text IS NULL OR kind = $1) AND ($2::text IS NULL OR currency = $2) ${cursor}
       ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    const data = rows.slice(0, query.limit).map((r): LedgerAccountResource => ({ object: 'ledger_account', id: r.id, kind: r.kind, currency: r.currency, balance: Number(r.balance), created_at: iso(r.created_at) }));
    return { object: 'list', data, has_more: rows.length > query.limit };
  }

  /** The balance as it stood at `asOf`: the movements created at or before it. */
  async balanceAsOf(account: string, asOf: string): Promise<number> {
    const { rows } = await this.pool.query<{ balance: string }>({ name: 'finance-balance-as-of', text: BALANCE_AS_OF_SQL, values: [account, asOf] });
    return Number(rows[0]!.balance);
  }

  async trialBalanceAsOf(asOf: string): Promise<TrialBalanceResource> {
    const { rows } = await this.pool.query<{ currency: Currency; total_debits: string; total_credits: string }>(
      `SELECT currency,
         coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS total_debits,
         coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS total_credits
       FROM ledger_postings WHERE created_at <= $1 GROUP BY currency ORDER BY currency`,
      [asOf],
    );
    return { object: 'trial_balance', currencies: rows.map((r) => ({ currency: r.currency, total_debits: Number(r.total_debits), total_credits: Number(r.total_credits) })) };
  }

  /**
   * The account's movements created in [from, to], oldest first, with the running balance. A page
   * opens with the balance before its first line (page one: the balance at `from`, exclusive) and
   * closes with opening + credits − debits: with no more pages, the balance at `to`.
   */
  async statement(request: StatementRequest): Promise<StatementResource> {
    const account = await this.account(request.account);
    let after: { created_at: Date; entry_position: string; seq: number } | undefined;
    if (request.startingAfter !== undefined) {
      const { rows } = await this.pool.query<{ created_at: Date; entry_position: string; seq: number }>(
        'SELECT created_at, entry_position, seq FROM ledger_postings WHERE account_id = $1 AND entry_id = $2 AND created_at >= $3 AND created_at <= $4 ORDER BY seq DESC LIMIT 1',
        [request.account, request.startingAfter, request.from, request.to],
      );
      if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${request.startingAfter}' is not an entry of this statement`, 'starting_after');
      after = rows[0];
    }
    // Lines strictly after the cursor (or from `from` on), in statement order.
    const lowerBound = after
      ? { text: '(p.created_at, p.entry_position, p.seq) > ($2, $3::bigint, $4::smallint)', values: [after.created_at, after.entry_position, after.seq] }
      : { text: 'p.created_at >= $2', values: [request.from] };
    const opening = after ? await this.balanceThrough(request.account, after) : await this.balanceBefore(request.account, request.from);
    const values = [request.account, ...lowerBound.values];
    values.push(request.to, request.limit + 1);
    const { rows } = await this.pool.query<{ entry_id: string; reference: string; kind: string; created_at: Date; direction: 'debit' | 'credit'; amount: string }>(
      `SELECT p.entry_id, e.reference, e.kind, p.created_at, p.direction, p.amount
       FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE p.account_id = $1 AND ${lowerBound.text} AND p.created_at <= $${values.length - 1}
       ORDER BY p.created_at, p.entry_position, p.seq LIMIT $${values.length}`,
      values,
    );
    let balance = opening;
    let totalDebits = 0;
    let totalCredits = 0;
    const lines = rows.slice(0, request.limit).map((row): StatementLineResource => {
      const amount = Number(row.amount);
      if (row.direction === 'credit') totalCredits += amount;
      else totalDebits += amount;
      balance += row.direction === 'credit' ? amount : -amount;
      return { entry: row.entry_id, reference: row.reference, kind: row.kind, created_at: iso(row.created_at), direction: row.direction, amount, balance_after: balance };
    });
    return {
      object: 'statement',
      account: request.account,
      currency: account.currency,
      from: request.from,
      to: request.to,
      opening_balance: opening,
      closing_balance: balance,
      total_debits: totalDebits,
      total_credits: totalCredits,
      lines,
      has_more: rows.length > request.limit,
    };
  }

  /**
   * The balance over [from, to] for a chart, in a few index reads whatever the account's history: its
   * movements of the period (time and balance after each) when there are at most
   * BALANCE_SERIES_MOVEMENTS_MAX, else the balance at `samples` evenly spaced instants (the last at
   * `to`), one index step each, in one statement.
   */
  async balanceSeries(request: BalanceSeriesRequest): Promise<BalanceSeries> {
    const { currency } = await this.account(request.account);
    const samples = Math.min(Math.max(1, Math.trunc(request.samples)), BALANCE_SERIES_SAMPLES_MAX);
    // Counted from the index alone (it covers the period's bounds), so a busy period reads no posting's row.
    const [opening, counted, totals] = await Promise.all([
      this.balanceBefore(request.account, request.from),
      this.pool.query<{ movements: number }>({
        name: 'finance-balance-series-count',
        text: `SELECT count(*)::int AS movements FROM (
                 SELECT 1 FROM ledger_postings WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3 LIMIT $4) AS period`,
        values: [request.account, request.from, request.to, BALANCE_SERIES_MOVEMENTS_MAX + 1],
      }),
      // Summed from the index alone too (it includes direction and amount).
      this.pool.query<{ total_debits: string; total_credits: string }>({
        name: 'finance-period-totals',
        text: `SELECT coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS total_debits,
                      coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS total_credits
               FROM ledger_postings WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3`,
        values: [request.account, request.from, request.to],
      }),
    ]);
    const period = { totalDebits: Number(totals.rows[0]!.total_debits), totalCredits: Number(totals.rows[0]!.total_credits) };
    if (counted.rows[0]!.movements <= BALANCE_SERIES_MOVEMENTS_MAX) {
      const { rows } = await this.pool.query<{ created_at: Date; balance_after: string }>({
        name: 'finance-balance-series-movements',
        text: `SELECT created_at, balance_after FROM ledger_postings WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3
               ORDER BY created_at, entry_position, seq LIMIT $4`,
        values: [request.account, request.from, request.to, BALANCE_SERIES_MOVEMENTS_MAX + 1],
      });
      // Movements committed since the count may take the period past the bound: then it is sampled.
      if (rows.length <= BALANCE_SERIES_MOVEMENTS_MAX) {
        const points = rows.map((r) => ({ at: iso(r.created_at), balance: Number(r.balance_after) }));
        return { currency, opening, closing: points.at(-1)?.balance ?? opening, ...period, points, sampled: false };
      }
    }
    const [start, end] = [Date.parse(request.from), Date.parse(request.to)];
    const instants = Array.from({ length: samples }, (_, i) => new Date(start + ((end - start) * (i + 1)) / samples).toISOString());
    const { rows } = await this.pool.query<{ balance: string }>({ name: 'finance-balances-at', text: BALANCES_AT_SQL, values: [request.account, instants] });
    const points = instants.map((at, i) => ({ at, balance: Number(rows[i]!.balance) }));
    return { currency, opening, closing: points.at(-1)!.balance, ...period, points, sampled: true };
  }

  /** Entries that moved the account in [from, to], oldest first, each with all its postings. */
  async entriesOfAccount(query: { account: string; from?: string; to?: string; limit: number; startingAfter?: string }): Promise<ListResource<JournalEntryResource>> {
    const values: unknown[] = [query.account, query.from ?? null, query.to ?? null];
    let cursor = '';
    if (query.startingAfter !== undefined) {
      // The cursor is an entry of this list: one that moved this account within the period.
      const { rows } = await this.pool.query<{ position: string }>(
        `SELECT entry_position AS position FROM ledger_postings
         WHERE account_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at <= $3) AND entry_id = $4 LIMIT 1`,
        [...values, query.startingAfter],
      );
      if (!rows[0]) {
        await this.account(query.account); // an unknown account is 404 first
        throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
      }
      values.push(rows[0].position);
      cursor = `AND p.entry_position > $${values.length}`;
    }
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<{ id: string; reference: string; kind: string; created_at: Date; postings: PostingResource[] }>(
      `SELECT e.id, e.reference, e.kind, e.created_at,
         (SELECT json_agg(json_build_object('account', q.account_id, 'direction', q.direction, 'amount', q.amount, 'currency', q.currency) ORDER BY q.seq)
          FROM ledger_postings q WHERE q.entry_id = e.id) AS postings
       FROM (SELECT DISTINCT p.entry_id, p.entry_position FROM ledger_postings p
             WHERE p.account_id = $1 AND ($2::timestamptz IS NULL OR p.created_at >= $2) AND ($3::timestamptz IS NULL OR p.created_at <= $3) ${cursor}
             ORDER BY p.entry_position LIMIT $${values.length}) moved
       JOIN ledger_entries e ON e.id = moved.entry_id
       ORDER BY moved.entry_position`,
      values,
    );
    // An account with postings exists: only an empty first page says whether it is unknown (404).
    if (rows.length === 0 && cursor === '') await this.account(query.account);
    const data = rows.slice(0, query.limit).map((r): JournalEntryResource => ({ id: r.id, object: 'journal_entry', reference: r.reference, kind: r.kind, created_at: iso(r.created_at), postings: r.postings }));
    return { object: 'list', data, has_more: rows.length > query.limit };
  }

  /** Fees credited to the platform in [from, to], per currency and use case (the entry's kind). */
  async feeRevenue({ from, to }: Period): Promise<FeeRevenueResource> {
    const { rows } = await this.pool.query<{ currency: Currency; kind: string; total: string }>({ name: 'finance-fee-revenue', text: FEE_REVENUE_SQL, values: [from, to, FEE_ACCOUNTS] });
    const currencies = [...new Set(rows.map((r) => r.currency))].sort().map((currency) => {
      const byUseCase = { payment: 0, cash_payment: 0, supplier_payment: 0, settlement: 0 };
      for (const row of rows.filter((r) => r.currency === currency)) {
        if (row.kind in byUseCase) byUseCase[row.kind as keyof typeof byUseCase] += Number(row.total);
      }
      const total = rows.filter((r) => r.currency === currency).reduce((sum, r) => sum + Number(r.total), 0);
      return { currency, total, by_use_case: byUseCase };
    });
    return { object: 'fee_revenue', from, to, currencies };
  }

  /** Collected cash not yet settled: with carriers (in transit) and at cash points, per currency. */
  async cashCustody(): Promise<Omit<CashInTransitResource, 'collections'>> {
    const { rows } = await this.pool.query<{ currency: Currency; with_carriers: string; at_cash_points: string }>(
      `SELECT currency,
         coalesce(sum(balance) FILTER (WHERE kind = 'platform_cash_in_transit'), 0) AS with_carriers,
         coalesce(sum(balance) FILTER (WHERE kind = 'cash_point'), 0) AS at_cash_points
       FROM ledger_accounts WHERE kind IN ('platform_cash_in_transit', 'cash_point') GROUP BY currency ORDER BY currency`,
    );
    return { object: 'cash_in_transit', currencies: rows.map((r) => ({ currency: r.currency, with_carriers: Number(r.with_carriers), at_cash_points: Number(r.at_cash_points) })) };
  }

  private async account(id: string): Promise<{ currency: Currency }> {
    const { rows } = await this.pool.query<{ currency: Currency }>('SELECT currency FROM ledger_accounts WHERE id = $1', [id]);
    if (!rows[0]) throw notFound('ledger account', id);
    return rows[0];
  }

  private async balanceBefore(account: string, time: string): Promise<number> {
    const { rows } = await this.pool.query<{ balance: string }>({ name: 'finance-balance-before', text: BALANCE_BEFORE_SQL, values: [account, time] });
    return Number(rows[0]!.balance);
  }

  /** The running balance through one posting, in statement order (time, then the order entries applied). */
  private async balanceThrough(account: string, line: { created_at: Date; entry_position: string; seq: number }): Promise<number> {
    const { rows } = await this.pool.query<{ balance: string }>({ name: 'finance-balance-through', text: BALANCE_THROUGH_SQL, values: [account, line.created_at, line.entry_position, line.seq] });
    return Number(rows[0]!.balance);
  }
}

/**
 * A balance at an instant is the balance after the account's last posting at or before it, in
 * statement order (time, then the order entries applied): one backward step of the index on
 * (account, time, position, seq), whatever the account's number of postings; 0 before its first.
 * balance_after follows the order entries applied, and so does time on one account: a transfer reads
 * the clock once it holds its accounts' locks, and the clock only moves forward.
 */
const balanceAfterLast = (bound: string): string => `coalesce((
    SELECT balance_after FROM ledger_postings WHERE account_id = $1 AND ${bound}
    ORDER BY created_at DESC, entry_position DESC, seq DESC LIMIT 1), 0)`;
const lastBalanceAfter = (bound: string): string => `SELECT ${balanceAfterLast(bound)} AS balance`;
/** The balance as of $2, that instant's movements included. */
export const BALANCE_AS_OF_SQL = lastBalanceAfter('created_at <= $2');
/** The balance just before $2: a statement's opening balance. */
export const BALANCE_BEFORE_SQL = lastBalanceAfter('created_at < $2');
/** The balance through one posting ($2, $3, $4: its time, entry position and seq). */
export const BALANCE_THROUGH_SQL = lastBalanceAfter('(created_at, entry_position, seq) <= ($2, $3::bigint, $4::smallint)');
/** The balance as of each instant of $2 (an array), in its order: one index step each. */
export const BALANCES_AT_SQL = `SELECT ${balanceAfterLast('created_at <= t.at')} AS balance
  FROM unnest($2::timestamptz[]) WITH ORDINALITY AS t (at, n) ORDER BY t.n`;

/**
 * The fee credits of one of the period's reads (period, start or end), each counted with the read's
 * sign. Its bounds are values of one-row queries (init plans), so that it is a range scan of the index
 * on (account, time) whatever the statistics; the entry's kind is looked up per posting, where a join
 * could hash every entry of the ledger.
 */
const feePostingsOf = (read: 'period' | 'start' | 'end'): string => `
    SELECT p.currency, (SELECT e.kind FROM ledger_entries e WHERE e.id = p.entry_id),
      (SELECT sign FROM reads WHERE read = '${read}') * p.amount, (SELECT sign FROM reads WHERE read = '${read}')
    FROM ledger_postings p
    WHERE p.account_id = ANY ($3::text[]) AND p.direction = 'credit'
      AND p.created_at >= (SELECT low FROM reads WHERE read = '${read}') AND p.created_at < (SELECT high FROM reads WHERE read = '${read}')`;

/**
 * Fees credited to the fee accounts ($3) in [$1, $2], per currency and kind of entry: exactly the sum of
 * the fee postings created at or after $1 and at or before $2, read mostly from the daily summary.
 *
 * With t = $2 + 1 µs (created_at <= $2 is created_at < t at PostgreSQL's resolution), the period is
 * [f, t). Each end is moved to its nearest UTC midnight, F and T (F <= T when f < t); then
 *   fees [f, t) = fees [f, F) + summary days [F, T) + fees [T, t)
 * where fees over a backward range [a, b) with b < a count as minus the fees of [b, a): the day a bound
 * falls in is read from the summary and the postings on the far side of the bound are taken away. Each
 * correction (start, end) reads at most half a day of the fee accounts' postings, and next to nothing
 * when the bounds are midnights or the last millisecond of a day (…T23:59:59.999Z). A period shorter than
 * what those two corrections would read is summed from its postings alone (period). A (currency, kind)
 * is answered when its net number of postings is positive, as the postings alone would answer it.
 */
export const FEE_REVENUE_SQL = `
  WITH bounds AS (
    SELECT f, t,
      date_trunc('day', (f AT TIME ZONE 'UTC') + interval '12 hours') AT TIME ZONE 'UTC' AS f_midnight,
      date_trunc('day', (t AT TIME ZONE 'UTC') + interval '12 hours') AT TIME ZONE 'UTC' AS t_midnight
    FROM (SELECT $1::timestamptz AS f, $2::timestamptz + interval '1 microsecond' AS t) AS period
    WHERE f < t
  ), choice AS (
    SELECT *, t - f <= greatest(f - f_midnight, f_midnight - f) + greatest(t - t_midnight, t_midnight - t) AS direct FROM bounds
  ), reads (read, low, high, sign) AS (
    SELECT 'period', f, t, 1 FROM choice WHERE direct
    UNION ALL
    SELECT 'start', least(f, f_midnight), greatest(f, f_midnight), CASE WHEN f < f_midnight THEN 1 ELSE -1 END FROM choice WHERE NOT direct
    UNION ALL
    SELECT 'end', least(t_midnight, t), greatest(t_midnight, t), CASE WHEN t_midnight < t THEN 1 ELSE -1 END FROM choice WHERE NOT direct
  ), parts AS (
    SELECT s.currency, s.kind, s.amount, s.postings
    FROM ledger_fee_revenue_daily s
    WHERE s.day >= (SELECT (f_midnight AT TIME ZONE 'UTC')::date FROM choice WHERE NOT direct)
      AND s.day < (SELECT (t_midnight AT TIME ZONE 'UTC')::date FROM choice WHERE NOT direct)
    UNION ALL ${feePostingsOf('period')}
    UNION ALL ${feePostingsOf('start')}
    UNION ALL ${feePostingsOf('end')}
  )
  SELECT currency, kind, sum(amount) AS total FROM parts GROUP BY currency, kind HAVING sum(postings) > 0`;

/** What the ledger moved, by reference (top-ups aside), a page of references at a time in their order. */
export async function movementsByReference(pool: Pool, afterReference: string | null, limit: number): Promise<LedgerMovementsPage> {
  const { rows: references } = await pool.query<{ reference: string }>(
    `SELECT DISTINCT reference FROM ledger_entries WHERE kind <> 'topup' AND ($1::text IS NULL OR reference > $1) ORDER BY reference LIMIT $2`,
    [afterReference, limit],
  );
  const page = references.map((r) => r.reference);
  const { rows } = await pool.query<{ reference: string; account_id: string; delta: string }>(
    `SELECT e.reference, p.account_id, sum(CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END) AS delta
     FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
     WHERE e.reference = ANY ($1::text[]) AND e.kind <> 'topup' GROUP BY e.reference, p.account_id`,
    [page],
  );
  const byReference: Record<string, Record<string, number>> = {};
  for (const row of rows) {
    const delta = Number(row.delta);
    if (delta !== 0) (byReference[row.reference] ??= {})[row.account_id] = delta;
  }
  return { byReference, nextAfterReference: page.length === limit ? page[page.length - 1]! : null };
}
