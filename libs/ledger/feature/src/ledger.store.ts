import { CURRENCIES, type Currency } from '@pay/kernel';
import { newId } from '@pay/kernel';
import { balanceDeltas, balancesAfter, platformAccount, type Posting } from '@pay/ledger-domain';
import { type PoolClient } from 'pg';

export interface LockedAccount {
  id: string;
  currency: Currency;
  balance: number;
  allowNegative: boolean;
}

/**
 * Locks the accounts in id order, so that two transactions never wait on each other in a cycle.
 * NO KEY UPDATE is enough (only balances change) and does not block the postings' foreign-key checks.
 */
export async function lockAccounts(client: PoolClient, ids: readonly string[]): Promise<Map<string, LockedAccount>> {
  const { rows } = await client.query<{ id: string; currency: Currency; balance: number; allow_negative: boolean }>({
    name: 'ledger.lock-accounts',
    text: 'SELECT id, currency, balance, allow_negative FROM ledger_accounts WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE',
    values: [[...new Set(ids)]],
  });
  return new Map(rows.map((row) => [row.id, { id: row.id, currency: row.currency, balance: row.balance, allowNegative: row.allow_negative }]));
}

/** The platform's fee accounts: their credits are fee revenue. */
export const FEE_ACCOUNTS: readonly string[] = CURRENCIES.map((currency) => platformAccount('fees', currency));

export interface NewEntry {
  id: string;
  operationId: string;
  reference: string;
  kind: string;
  createdAt: Date;
  postings: readonly Posting[];
  /** Stored as the operation's outcome in the same statement. */
  outcome: unknown;
}

/**
 * Entry, postings, balances and the operation's outcome in one statement (one round trip). Each posting
 * is a balance transaction with its account's balance right after it, computed from the locked accounts.
 * The postings that credit a fee account are added to their day's fee revenue (ledger_fee_revenue_daily)
 * by the same statement: counted once, with the entry (an operation writes its entry once: a replay
 * answers the stored outcome and writes nothing), and only by a transaction that holds the fee
 * account's lock, as every writer of an entry does. An entry without a fee credit leaves it alone.
 */
export async function writeEntry(client: PoolClient, entry: NewEntry, locked: ReadonlyMap<string, LockedAccount>): Promise<void> {
  const deltas = balanceDeltas(entry.postings);
  const before = new Map([...locked].map(([id, account]) => [id, account.balance]));
  const { rows } = await client.query<{ accounts_updated: number }>({
    name: 'ledger.write-entry',
    text: `
      WITH entry AS (
        INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING position
      ), postings AS (
        INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
        SELECT $1, p.seq, p.account_id, p.direction, p.amount, p.currency, p.txn_id, p.balance_after, (SELECT position FROM entry), $5
        FROM unnest($6::text[], $7::text[], $8::bigint[], $9::text[], $13::text[], $14::bigint[])
          WITH ORDINALITY AS p (account_id, direction, amount, currency, txn_id, balance_after, seq)
        RETURNING account_id, direction, amount, currency, created_at
      ), fee_revenue AS (
        INSERT INTO ledger_fee_revenue_daily AS f (day, currency, kind, amount, postings)
        SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency, $4::text, sum(p.amount), count(*)
        FROM postings p WHERE p.account_id = ANY ($15::text[]) AND p.direction = 'credit'
        GROUP BY 1, 2
        ON CONFLICT (day, currency, kind) DO UPDATE SET amount = f.amount + excluded.amount, postings = f.postings + excluded.postings
      ), operation AS (
        UPDATE ledger_operations SET outcome = $10 WHERE operation_id = $2
      ), balances AS (
        UPDATE ledger_accounts AS a SET balance = a.balance + d.delta
        FROM unnest($11::text[], $12::bigint[]) AS d (id, delta) WHERE a.id = d.id
        RETURNING a.id
      )
      SELECT count(*)::int AS accounts_updated FROM balances`,
    values: [
      entry.id,
      entry.operationId,
      entry.reference,
      entry.kind,
      entry.createdAt,
      entry.postings.map((p) => p.account),
      entry.postings.map((p) => p.direction),
      entry.postings.map((p) => p.amount),
      entry.postings.map((p) => p.currency),
      entry.outcome,
      [...deltas.keys()],
      [...deltas.values()],
      entry.postings.map(() => newId('balanceTransaction')),
      balancesAfter(entry.postings, before),
      FEE_ACCOUNTS,
    ],
  });
  // Callers lock every account first, so a missing one is a bug: fail and roll back.
  if (rows[0]?.accounts_updated !== deltas.size) throw new Error(`entry ${entry.id}: ${deltas.size - (rows[0]?.accounts_updated ?? 0)} account(s) missing`);
}
