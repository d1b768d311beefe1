import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { type Posting } from './postings';

/** The prev_hash of sequence 1. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an entry's hash covers, and nothing else (its kind, balances and transaction ids are not part of it). */
export interface ChainedEntry {
  sequence: number;
  id: string;
  reference: string;
  /** ISO 8601 with milliseconds, as the API answers it. */
  created_at: string;
  /** In the order the API answers them (the entry's posting order). */
  postings: readonly Posting[];
}

/** RFC 8785 canonical JSON of exactly the fields the chain covers, whatever else the entry carries. */
export function canonicalEntry(entry: ChainedEntry): string {
  const { sequence, id, reference, created_at, postings } = entry;
  const covered = { sequence, id, reference, created_at, postings: postings.map(({ account, direction, amount, currency }) => ({ account, direction, amount, currency })) };
  return canonicalize(covered) as string;
}

/** Lowercase hex SHA-256 of `prevHash + "\n" + canonical JSON`. */
export function entryHash(prevHash: string, entry: ChainedEntry): string {
  return createHash('sha256').update(`${prevHash}\n${canonicalEntry(entry)}`, 'utf8').digest('hex');
}

/** Hashes entries that follow `prevHash`, in order: each one's hash is the next one's prev_hash. */
export function chainEntries<E extends ChainedEntry>(prevHash: string, entries: readonly E[]): (E & { prev_hash: string; hash: string })[] {
  let prev = prevHash;
  return entries.map((entry) => {
    const hash = entryHash(prev, entry);
    const chained = { ...entry, prev_hash: prev, hash };
    prev = hash;
    return chained;
  });
}

/** The bytes a head's signature covers: `sequence + "." + hash + "." + signed_at`. */
export const headMessage = (head: { sequence: number; hash: string; signed_at: string }): string => `${head.sequence}.${head.hash}.${head.signed_at}`;

/** Where a walk of the chain stands: the last entry checked (sequence 0 and 64 zeros before the first). */
export interface ChainCursor {
  sequence: number;
  hash: string;
}

/**
 * Walks stored entries in sequence order, continuing from `from` (the entry before the first one
 * given): the first sequence whose place or hash does not hold, or null. A missing sequence (a deleted
 * entry) fails at that sequence; an entry whose content changed fails at its own; two entries swapped
 * fail at the first of the pair.
 */
export function checkChain(from: ChainCursor, entries: readonly (ChainedEntry & { hash: string })[]): { cursor: ChainCursor; firstBroken: number | null } {
  let cursor = from;
  for (const entry of entries) {
    const expected = cursor.sequence + 1;
    if (entry.sequence !== expected) return { cursor, firstBroken: expected };
    if (entryHash(cursor.hash, entry) !== entry.hash) return { cursor, firstBroken: expected };
    cursor = { sequence: entry.sequence, hash: entry.hash };
  }
  return { cursor, firstBroken: null };
}
