import { type Clock, CURRENCIES, type Currency } from '@pay/kernel';
import { newId } from '@pay/kernel';
import { balanceDeltas, balancesAfter, platformAccount, type Posting } from '@pay/ledger-domain';
import { type PoolClient } from 'pg';
import { chainAfter, lockChainHead } from './chain.store';

export interface LockedAccount {
  id: string;
  currency: Currency;
  balance: number;
  allowNegative: boolean;
}

export interface LockedForEntry {
  accounts: Map<string, LockedAccount>;
  /**
   * The entry's time, read once the accounts are locked: the clock's, or the last posting's of those
   * accounts when the clock reads earlier (another ledger instance's clock ahead of this one's), so
   * that on every account time order is the order its balance moved.
   */
  now: Date;
}

/**
 * Locks the accounts in id order, so that two transactions never wait on each other in a cycle, and
 * dates the entry they are locked for. NO KEY UPDATE is enough (only balances change) and does not
 * block the postings' foreign-key checks.
 */
export async function lockAccounts(client: PoolClient, ids: readonly string[], clock: Clock): Promise<LockedForEntry> {
  const { rows } = await client.query<{ id: string; currency: Currency; balance: number; allow_negative: boolean; last_posted_at: Date | null }>({
    name: 'ledger.lock-accounts',
    text: 'SELECT id, currency, balance, allow_negative, last_posted_at FROM ledger_accounts WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE',
    values: [[...new Set(ids)]],
  });
  let now = clock.now();
  for (const row of rows) if (row.last_posted_at && row.last_posted_at > now) now = row.last_posted_at;
  return { accounts: new Map(rows.map((row) => [row.id, { id: row.id, currency: row.currency, balance: row.balance, allowNegative: row.allow_negative }])), now };
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
 * The entry is chained (sequence and hash) under the chain head's lock, taken here, after the accounts'.
 */
export async function writeEntry(client: PoolClient, entry: NewEntry, locked: ReadonlyMap<string, LockedAccount>): Promise<void> {
  const deltas = balanceDeltas(entry.postings);
  const before = new Map([...locked].map(([id, account]) => [id, account.balance]));
  const chain = chainAfter(await lockChainHead(client), [entry]);
  const link = chain.links[0]!;
  const { rows } = await client.query<{ accounts_updated: number }>({
    name: 'ledger.write-entry',
    text: `
      WITH entry AS (
        INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at, sequence, hash) VALUES ($1, $2, $3, $4, $5, $16, $17) RETURNING position
      ), head AS (
        UPDATE ledger_chain_head SET sequence = $16, hash = $17
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
        UPDATE ledger_accounts AS a SET balance = a.balance + d.delta, last_posted_at = greatest(a.last_posted_at, $5)
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
      link.sequence,
      link.hash,
    ],
  });
  // Callers lock every account first, so a missing one is a bug: fail and roll back.
  if (rows[0]?.accounts_updated !== deltas.size) throw new Error(`entry ${entry.id}: ${deltas.size - (rows[0]?.accounts_updated ?? 0)} account(s) missing`);
}

/** An entry of a batch: its postings with each account's balance right after it, decided in order. */
export interface BatchEntry {
  id: string;
  operationId: string;
  reference: string;
  kind: string;
  postings: readonly Posting[];
  balancesAfter: readonly number[];
}

export interface BatchWrite {
  /** The time of every entry of the batch: read once its accounts were locked. */
  createdAt: Date;
  /** In the order they were decided: their positions (and balance_after) follow it. */
  entries: readonly BatchEntry[];
  /** The outcome of each operation the batch claimed and decided, applied or rejected. */
  outcomes: readonly { operationId: string; outcome: unknown }[];
  /** Operations the batch claimed but refused (a missing account, another currency): released, as a rollback would. */
  released: readonly string[];
  /** The final balance of every account the entries move, as the decisions left it. */
  balances: ReadonlyMap<string, number>;
}

/**
 * writeEntry for a whole batch, set-based, in one statement: entries (positions in decision order),
 * postings with their balance_after, fee revenue per day, currency and kind, the operations' outcomes,
 * the released claims and each account's balance, moved once by the batch's total. The balances the
 * statement leaves are checked against the decisions': the accounts are locked, so any difference is
 * a bug, and fails the batch. The batch's entries are chained at once, in decision order, under the
 * chain head's lock (taken here, after the accounts', and only when there is an entry to chain).
 */
export async function writeEntries(client: PoolClient, batch: BatchWrite, locked: ReadonlyMap<string, LockedAccount>): Promise<void> {
  const chain = batch.entries.length === 0 ? { links: [], head: null } : chainAfter(await lockChainHead(client), batch.entries.map((e) => ({ ...e, createdAt: batch.createdAt })));
  const postings = batch.entries.flatMap((entry) =>
    entry.postings.map((posting, i) => ({ entryId: entry.id, seq: i + 1, ...posting, balanceAfter: entry.balancesAfter[i] as number, txnId: newId('balanceTransaction') })),
  );
  const deltas = balanceDeltas(batch.entries.flatMap((entry) => entry.postings));
  const { rows } = await client.query<{ outcomes_stored: number; released: number; balances: { id: string; balance: number }[] | null }>({
    name: 'ledger.write-entries',
    text: `
      WITH entries AS (
        INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at, sequence, hash)
        SELECT e.id, e.operation_id, e.reference, e.kind, $1, e.sequence, e.hash
        FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $20::bigint[], $21::text[]) WITH ORDINALITY AS e (id, operation_id, reference, kind, sequence, hash, n)
        ORDER BY e.n
        RETURNING id, position, kind
      ), head AS (
        UPDATE ledger_chain_head SET sequence = $22, hash = $23 WHERE $22::bigint IS NOT NULL
      ), postings AS (
        INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
        SELECT p.entry_id, p.seq, p.account_id, p.direction, p.amount, p.currency, p.txn_id, p.balance_after, e.position, $1
        FROM unnest($6::text[], $7::smallint[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[], $13::bigint[])
          AS p (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after)
        JOIN entries e ON e.id = p.entry_id
        RETURNING entry_id, account_id, direction, amount, currency, created_at
      ), fee_revenue AS (
        INSERT INTO ledger_fee_revenue_daily AS f (day, currency, kind, amount, postings)
        SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency, e.kind, sum(p.amount), count(*)
        FROM postings p JOIN entries e ON e.id = p.entry_id
        WHERE p.account_id = ANY ($14::text[]) AND p.direction = 'credit'
        GROUP BY 1, 2, 3
        ON CONFLICT (day, currency, kind) DO UPDATE SET amount = f.amount + excluded.amount, postings = f.postings + excluded.postings
      ), outcomes AS (
        -- The = ANY finds the rows by the primary key: joined on the unnest alone, the generic plan
        -- (an unnest of a parameter is guessed at 100 rows) hashes it and scans the whole table.
        UPDATE ledger_operations AS o SET outcome = u.outcome::jsonb
        FROM unnest($15::text[], $16::text[]) AS u (id, outcome) WHERE o.operation_id = ANY ($15::text[]) AND o.operation_id = u.id
        RETURNING 1
      ), released AS (
        DELETE FROM ledger_operations WHERE operation_id = ANY ($17::text[]) AND outcome IS NULL RETURNING 1
      ), balances AS (
        UPDATE ledger_accounts AS a SET balance = a.balance + d.delta, last_posted_at = greatest(a.last_posted_at, $1)
        FROM unnest($18::text[], $19::bigint[]) AS d (id, delta) WHERE a.id = d.id
        RETURNING a.id, a.balance
      )
      SELECT (SELECT count(*) FROM outcomes)::int AS outcomes_stored, (SELECT count(*) FROM released)::int AS released,
        (SELECT json_agg(json_build_object('id', id, 'balance', balance)) FROM balances) AS balances`,
    values: [
      batch.createdAt,
      batch.entries.map((e) => e.id),
      batch.entries.map((e) => e.operationId),
      batch.entries.map((e) => e.reference),
      batch.entries.map((e) => e.kind),
      postings.map((p) => p.entryId),
      postings.map((p) => p.seq),
      postings.map((p) => p.account),
      postings.map((p) => p.direction),
      postings.map((p) => p.amount),
      postings.map((p) => p.currency),
      postings.map((p) => p.txnId),
      postings.map((p) => p.balanceAfter),
      FEE_ACCOUNTS,
      batch.outcomes.map((o) => o.operationId),
      batch.outcomes.map((o) => JSON.stringify(o.outcome)),
      batch.released,
      [...deltas.keys()],
      [...deltas.values()],
      chain.links.map((l) => l.sequence),
      chain.links.map((l) => l.hash),
      chain.head?.sequence ?? null,
      chain.head?.hash ?? null,
    ],
  });
  const written = rows[0];
  if (written?.outcomes_stored !== batch.outcomes.length) throw new Error(`batch: ${batch.outcomes.length} outcome(s) to store, ${written?.outcomes_stored} stored`);
  if (written.released !== batch.released.length) throw new Error(`batch: ${batch.released.length} claim(s) to release, ${written.released} released`);
  // Callers lock every account first, so a missing or different balance is a bug: fail and roll back.
  const moved = new Map((written.balances ?? []).map((row) => [row.id, row.balance]));
  for (const id of deltas.keys()) {
    if (moved.get(id) !== batch.balances.get(id)) throw new Error(`batch: account ${id} at ${moved.get(id)}, decided ${batch.balances.get(id)} (locked at ${locked.get(id)?.balance})`);
  }
}
