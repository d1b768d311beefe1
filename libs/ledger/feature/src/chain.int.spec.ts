import { type Clock, newId } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE, entryHash, GENESIS_HASH, headMessage } from '@pay/ledger-domain';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, paymentTransfer as payment } from '@pay/testing';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { type Pool } from 'pg';
import { LEDGER_MIGRATIONS, LedgerChain, LedgerService, signingKey } from './index';

/**
 * The chain over a real PostgreSQL: entries written by batches, by transfers alone and by top-ups, from
 * two ledger services on one database (two instances), are chained gapless in commit order; entries
 * written without a sequence are sealed after them; a change made in SQL is found at its sequence.
 */
const tickingClock = (start: Date): Clock => {
  let ms = start.getTime();
  return { now: () => new Date(ms++) };
};

let pool: Pool;
let ledgers: LedgerService[];
let chains: LedgerChain[];
const key = signingKey(generateKeyPairSync('ed25519').privateKey);

beforeAll(async () => {
  const url = await createTestDatabase('ledger_chain');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  pool = createPool(url, { max: 20, statementTimeoutMs: 10_000 });
  const clock = tickingClock(new Date('2026-12-01T10:00:00.000Z'));
  ledgers = [new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE), new LedgerService(pool, clock, DEFAULT_FEE_SCHEDULE)];
  chains = [new LedgerChain(pool, clock, key), new LedgerChain(pool, clock, key)];
});

afterAll(async () => {
  await Promise.all(chains.map((c) => c.stop()));
  await pool.end();
});


/** Every entry in sequence order, its hash recomputed from the rows here (not by the code under test's reads). */
async function recompute(): Promise<{ sequences: number[]; mismatches: number[] }> {
  const { rows } = await pool.query<{ sequence: number; id: string; reference: string; created_at: Date; hash: string; postings: any[] }>(
    `SELECT e.sequence, e.id, e.reference, e.created_at, e.hash,
       (SELECT json_agg(json_build_object('account', p.account_id, 'direction', p.direction, 'amount', p.amount, 'currency', p.currency) ORDER BY p.seq) FROM ledger_postings p WHERE p.entry_id = e.id) AS postings
     FROM ledger_entries e ORDER BY e.sequence`,
  );
  let prev = GENESIS_HASH;
  const mismatches: number[] = [];
  for (const row of rows) {
    const hash = entryHash(prev, { sequence: row.sequence, id: row.id, reference: row.reference, created_at: row.created_at.toISOString(), postings: row.postings });
    if (hash !== row.hash) mismatches.push(row.sequence);
    prev = row.hash;
  }
  return { sequences: rows.map((r) => r.sequence), mismatches };
}

describe('the ledger chain', () => {
  it('chains every entry of two instances (batches, transfers alone, top-ups) gapless, and the head signs the last', async () => {
    await Promise.all(chains.map((c) => c.start()));
    const [a, b] = ledgers as [LedgerService, LedgerService];
    const payer = newId('customer');
    const merchant = newId('connection');
    await a.openAccount({ owner: payer, kind: 'customer', currency: 'DZD' });
    await a.openAccount({ owner: merchant, kind: 'connection', currency: 'DZD' });
    await Promise.all([a, b].map((l) => l.topup({ topupId: newId('topup'), owner: payer, amount: 1_000_000, currency: 'DZD' })));
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? a : b).transfer(payment(payer, merchant, 1_000 + i))));
    expect(results.every((r) => r.status === 'completed')).toBe(true);

    const { sequences, mismatches } = await recompute();
    expect(sequences).toEqual(Array.from({ length: 122 }, (_, i) => i + 1));
    expect(mismatches).toEqual([]);
    await expect(chains[0]!.verify()).resolves.toEqual({ object: 'chain_verification', status: 'valid', entries: 122, first_broken_sequence: null });

    const head = await chains[1]!.head();
    expect(head).toMatchObject({ object: 'ledger_head', sequence: 122, key_id: key.keyId });
    expect(verify(null, Buffer.from(headMessage(head)), createPublicKey(key.publicKey), Buffer.from(head.signature, 'base64'))).toBe(true);
    expect((await chains[0]!.signingKeys()).data).toEqual([{ key_id: key.keyId, algorithm: 'Ed25519', public_key: key.publicKey }]);
  });

  it('seals entries written without a sequence (older than the chain), once, even with two sealers at once', async () => {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM ledger_entries WHERE sequence > 100 ORDER BY sequence');
    // As an existing ledger looks after the migration: the last entries have no sequence yet.
    await pool.query('UPDATE ledger_entries SET sequence = NULL, hash = NULL WHERE sequence > 100');
    await pool.query("UPDATE ledger_chain_head SET sequence = 100, hash = (SELECT hash FROM ledger_entries WHERE sequence = 100)");
    const sealed = await Promise.all(chains.map((c) => c.sealAll()));
    expect(sealed[0]! + sealed[1]!).toBe(rows.length);
    const { sequences, mismatches } = await recompute();
    expect(sequences).toEqual(Array.from({ length: 122 }, (_, i) => i + 1));
    expect(mismatches).toEqual([]);
    // In their order of writing.
    expect((await pool.query('SELECT id FROM ledger_entries WHERE sequence > 100 ORDER BY sequence')).rows.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'valid', entries: 122 });
  });

  it('finds a changed amount, a deleted entry and a swapped pair at their sequence', async () => {
    const amountOf = async (sequence: number) => (await pool.query(`SELECT p.amount FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id WHERE e.sequence = $1 AND p.seq = 1`, [sequence])).rows[0].amount;
    const original = await amountOf(50);
    await pool.query('UPDATE ledger_postings p SET amount = amount + 1 FROM ledger_entries e WHERE e.id = p.entry_id AND e.sequence = 50 AND p.seq = 1');
    await expect(chains[0]!.verify()).resolves.toEqual({ object: 'chain_verification', status: 'broken', entries: 49, first_broken_sequence: 50 });
    await pool.query('UPDATE ledger_postings p SET amount = $1 FROM ledger_entries e WHERE e.id = p.entry_id AND e.sequence = 50 AND p.seq = 1', [original]);
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'valid' });

    await pool.query('UPDATE ledger_entries SET sequence = -sequence WHERE sequence IN (60, 61)');
    await pool.query('UPDATE ledger_entries SET sequence = CASE sequence WHEN -60 THEN 61 ELSE 60 END WHERE sequence IN (-60, -61)');
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'broken', first_broken_sequence: 60 });
    await pool.query('UPDATE ledger_entries SET sequence = -sequence WHERE sequence IN (60, 61)');
    await pool.query('UPDATE ledger_entries SET sequence = CASE sequence WHEN -60 THEN 61 ELSE 60 END WHERE sequence IN (-60, -61)');
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'valid' });

    await pool.query('DELETE FROM ledger_postings p USING ledger_entries e WHERE e.id = p.entry_id AND e.sequence = 122');
    await pool.query('DELETE FROM ledger_entries WHERE sequence = 122');
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'broken', first_broken_sequence: 122 });
    await pool.query('DELETE FROM ledger_postings p USING ledger_entries e WHERE e.id = p.entry_id AND e.sequence = 70');
    await pool.query('DELETE FROM ledger_entries WHERE sequence = 70');
    await expect(chains[0]!.verify()).resolves.toMatchObject({ status: 'broken', entries: 69, first_broken_sequence: 70 });
  });
});
