import type { Pool } from 'pg';
import {
  notFound,
  ServiceError,
  type BalanceTransactionResource,
  type BalanceTransactionType,
  type ListBalanceTransactions,
  type ListResource,
} from '@pay/contracts';
import { iso, type Currency } from '@pay/kernel';

/** Journal entry kinds that are a balance transaction type of their own; any other kind is an adjustment. */
const TYPED_KINDS: ReadonlySet<string> = new Set<BalanceTransactionType>(['payment', 'cash_payment', 'supplier_payment', 'settlement', 'refund', 'topup', 'payout', 'payout_reversal']);

export const balanceTransactionType = (entryKind: string): BalanceTransactionType =>
  TYPED_KINDS.has(entryKind) ? (entryKind as BalanceTransactionType) : 'adjustment';

interface Row {
  txn_id: string;
  account_id: string;
  kind: string;
  reference: string;
  direction: 'debit' | 'credit';
  amount: string;
  fee_amount: string;
  currency: Currency;
  balance_after: string;
  created_at: Date;
}

/** A posting with its entry: kind, reference, and the fee the entry credited to the platform. */
const SELECT_ROWS = `
  SELECT p.txn_id, p.account_id, e.kind, e.reference, p.direction, p.amount, p.currency, p.balance_after, p.created_at,
    (SELECT coalesce(sum(f.amount), 0) FROM ledger_postings f
     WHERE f.entry_id = p.entry_id AND f.direction = 'credit' AND f.account_id LIKE 'platform:fees:%') AS fee_amount
  FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id`;

const toResource = (row: Row): BalanceTransactionResource => ({
  id: row.txn_id,
  object: 'balance_transaction',
  connection: row.account_id,
  type: balanceTransactionType(row.kind),
  source: row.reference,
  amount: row.direction === 'credit' ? Number(row.amount) : -Number(row.amount),
  fee_amount: Number(row.fee_amount),
  currency: row.currency,
  balance_after: Number(row.balance_after),
  created_at: iso(row.created_at),
});

/** The movements of one account, read from its postings (newest first, in the order they applied). */
export class BalanceTransactions {
  constructor(private readonly pool: Pool) {}

  async list(query: ListBalanceTransactions): Promise<ListResource<BalanceTransactionResource>> {
    const values: unknown[] = [query.owner];
    const where = ['p.account_id = $1'];
    const add = (condition: (n: number) => string, value: unknown) => {
      values.push(value);
      where.push(condition(values.length));
    };
    if (query.source !== undefined) add((n) => `e.reference = $${n}`, query.source);
    if (query.createdGte !== undefined) add((n) => `p.created_at >= $${n}`, query.createdGte);
    if (query.createdLt !== undefined) add((n) => `p.created_at < $${n}`, query.createdLt);
    if (query.startingAfter !== undefined) {
      // Looked up under the list's filters: a movement of another source or period is not a cursor of this list.
      const cursor = await this.pool.query<{ entry_position: string; seq: number }>(
        `SELECT p.entry_position, p.seq FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id WHERE ${where.join(' AND ')} AND p.txn_id = $${values.length + 1}`,
        [...values, query.startingAfter],
      );
      if (!cursor.rows[0]) throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
      values.push(cursor.rows[0].entry_position, cursor.rows[0].seq);
      where.push(`(p.entry_position, p.seq) < ($${values.length - 1}::bigint, $${values.length}::smallint)`);
    }
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<Row>(`${SELECT_ROWS} WHERE ${where.join(' AND ')} ORDER BY p.entry_position DESC, p.seq DESC LIMIT $${values.length}`, values);
    return { object: 'list', data: rows.slice(0, query.limit).map(toResource), has_more: rows.length > query.limit };
  }

  async retrieve(id: string): Promise<BalanceTransactionResource> {
    const { rows } = await this.pool.query<Row>(`${SELECT_ROWS} WHERE p.txn_id = $1`, [id]);
    if (!rows[0]) throw notFound('balance transaction', id);
    return toResource(rows[0]);
  }
}
