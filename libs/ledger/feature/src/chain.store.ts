import { type Currency, iso } from '@pay/kernel';
import { type ChainCursor, type ChainedEntry, chainEntries, checkChain, GENESIS_HASH } from '@pay/ledger-domain';
import { type Pool, type PoolClient } from 'pg';

/**
 * Locks the chain's head row and reads it: the last sequence and hash. Taken by every writer of entries
 * after its accounts (never before: the accounts are the locks every writer takes first, in id order),
 * and held until its commit, so sequences are given in commit order, and a rollback gives none back.
 */
export async function lockChainHead(client: PoolClient): Promise<ChainCursor> {
  const { rows } = await client.query<ChainCursor>({ name: 'ledger.lock-chain-head', text: 'SELECT sequence, hash FROM ledger_chain_head FOR UPDATE' });
  if (!rows[0]) throw new Error('ledger_chain_head has no row: the ledger migrations did not run');
  return rows[0];
}

/** What an entry writer gives the chain: the entry as the API answers it. */
export interface ToChain {
  id: string;
  reference: string;
  createdAt: Date;
  postings: ChainedEntry['postings'];
}

/** The sequence and hash of each entry after `head`, in order, and the new head. */
export function chainAfter(head: ChainCursor, entries: readonly ToChain[]): { links: { sequence: number; hash: string }[]; head: ChainCursor } {
  const chained = chainEntries(
    head.hash,
    entries.map((e, i) => ({ sequence: head.sequence + 1 + i, id: e.id, reference: e.reference, created_at: iso(e.createdAt), postings: e.postings })),
  );
  const links = chained.map((c) => ({ sequence: c.sequence, hash: c.hash }));
  const last = links[links.length - 1];
  return { links, head: last ?? head };
}

/** A chained entry as stored (and as `GET /admin/v1/ledger/chain` answers it, prev_hash aside). */
export interface StoredChainEntry extends ChainedEntry {
  hash: string;
}

/**
 * Entries by sequence in [from, from + limit): the postings in the order every read answers them (seq),
 * the amounts as JSON numbers. A sequence deleted from the table is simply absent.
 */
export async function readChain(db: Pool | PoolClient, from: number, limit: number): Promise<StoredChainEntry[]> {
  const { rows } = await db.query<{ sequence: number; id: string; reference: string; created_at: Date; hash: string; postings: { account: string; direction: 'debit' | 'credit'; amount: number; currency: Currency }[] | null }>({
    name: 'ledger.read-chain',
    text: `
      SELECT e.sequence, e.id, e.reference, e.created_at, e.hash,
        (SELECT json_agg(json_build_object('account', p.account_id, 'direction', p.direction, 'amount', p.amount, 'currency', p.currency) ORDER BY p.seq)
         FROM ledger_postings p WHERE p.entry_id = e.id) AS postings
      FROM ledger_entries e WHERE e.sequence >= $1 AND e.sequence < $1 + $2 ORDER BY e.sequence`,
    values: [from, limit],
  });
  return rows.map((r) => ({ sequence: r.sequence, id: r.id, reference: r.reference, created_at: iso(r.created_at), postings: r.postings ?? [], hash: r.hash }));
}

/** The stored hash of one sequence (the prev_hash of the next), 64 zeros before the first. */
export async function hashAt(db: Pool | PoolClient, sequence: number): Promise<string | undefined> {
  if (sequence === 0) return GENESIS_HASH;
  const { rows } = await db.query<{ hash: string }>({ name: 'ledger.hash-at', text: 'SELECT hash FROM ledger_entries WHERE sequence = $1', values: [sequence] });
  return rows[0]?.hash;
}

/**
 * Recomputes every hash from the stored entries and postings, a page at a time, and checks the last
 * one is the head's: the first sequence that does not hold (changed, missing, moved), or null.
 */
export async function verifyStoredChain(pool: Pool, pageSize: number): Promise<{ entries: number; firstBroken: number | null }> {
  const { rows } = await pool.query<ChainCursor>('SELECT sequence, hash FROM ledger_chain_head');
  const head = rows[0]!;
  let cursor: ChainCursor = { sequence: 0, hash: GENESIS_HASH };
  for (;;) {
    const page = await readChain(pool, cursor.sequence + 1, pageSize);
    const checked = checkChain(cursor, page);
    if (checked.firstBroken !== null) return { entries: checked.cursor.sequence, firstBroken: checked.firstBroken };
    cursor = checked.cursor;
    if (page.length < pageSize) break;
  }
  // Entries past a gap are not read by sequence pages: any entry numbered beyond the walk is a gap's proof.
  const { rows: beyond } = await pool.query<{ max: number | null }>('SELECT max(sequence) AS max FROM ledger_entries');
  const last = Math.max(head.sequence, beyond[0]?.max ?? 0);
  if (cursor.sequence < last) return { entries: cursor.sequence, firstBroken: cursor.sequence + 1 };
  if (cursor.hash !== head.hash) return { entries: cursor.sequence, firstBroken: cursor.sequence };
  return { entries: cursor.sequence, firstBroken: null };
}

/**
 * Chains entries that have no sequence yet (written before the chain existed, or straight in SQL by a
 * tool), oldest first by position, after the head: at most `max` in one transaction that holds the
 * head's lock, so two ledger instances sealing at once give each entry one sequence. Returns how many,
 * and the position to go on from.
 */
export async function sealUnchained(client: PoolClient, max: number, afterPosition = 0): Promise<{ sealed: number; lastPosition: number }> {
  const head = await lockChainHead(client);
  // From the last position sealed on: the partial index keeps the entries just sealed (dead to it) until
  // a vacuum, and a scan from its start would step over all of them again at every page.
  const { rows } = await client.query<{ id: string; position: number; reference: string; created_at: Date; postings: ToChain['postings'] | null }>({
    name: 'ledger.unchained',
    text: `
      SELECT e.id, e.position, e.reference, e.created_at,
        (SELECT json_agg(json_build_object('account', p.account_id, 'direction', p.direction, 'amount', p.amount, 'currency', p.currency) ORDER BY p.seq)
         FROM ledger_postings p WHERE p.entry_id = e.id) AS postings
      FROM ledger_entries e WHERE e.sequence IS NULL AND e.position > $2 ORDER BY e.position LIMIT $1`,
    values: [max, afterPosition],
  });
  if (rows.length === 0) return { sealed: 0, lastPosition: afterPosition };
  const chain = chainAfter(head, rows.map((r) => ({ id: r.id, reference: r.reference, createdAt: r.created_at, postings: r.postings ?? [] })));
  await client.query({
    name: 'ledger.seal',
    text: `
      WITH sealed AS (
        -- = ANY finds the rows by the primary key (joined on the unnest alone, a generic plan hashes it and scans the table).
        UPDATE ledger_entries AS e SET sequence = s.sequence, hash = s.hash
        FROM unnest($1::text[], $2::bigint[], $3::text[]) AS s (id, sequence, hash) WHERE e.id = ANY ($1::text[]) AND e.id = s.id
      )
      UPDATE ledger_chain_head SET sequence = $4, hash = $5`,
    values: [rows.map((r) => r.id), chain.links.map((l) => l.sequence), chain.links.map((l) => l.hash), chain.head.sequence, chain.head.hash],
  });
  return { sealed: rows.length, lastPosition: rows[rows.length - 1]!.position };
}

/** Whether any entry waits for a sequence: one look at a partial index that is empty in steady state. */
export async function hasUnchained(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query({ name: 'ledger.has-unchained', text: 'SELECT 1 FROM ledger_entries WHERE sequence IS NULL LIMIT 1' });
  return rows.length > 0;
}
