import { createHash } from 'node:crypto';
import { canonicalEntry, chainEntries, checkChain, entryHash, GENESIS_HASH, headMessage, type ChainedEntry } from './chain';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const first: ChainedEntry = {
  sequence: 1,
  id: 'je_1',
  reference: 'pay_1',
  created_at: '2026-11-28T10:00:00.000Z',
  postings: [
    { account: 'cus_1', direction: 'debit', amount: 100_000, currency: 'DZD' },
    { account: 'conn_1', direction: 'credit', amount: 98_500, currency: 'DZD' },
    { account: 'platform:fees:DZD', direction: 'credit', amount: 1_500, currency: 'DZD' },
  ],
};
// Written by hand: keys sorted (created_at, id, postings, reference, sequence; account, amount, currency, direction), no whitespace.
const FIRST_CANONICAL =
  '{"created_at":"2026-11-28T10:00:00.000Z","id":"je_1","postings":[' +
  '{"account":"cus_1","amount":100000,"currency":"DZD","direction":"debit"},' +
  '{"account":"conn_1","amount":98500,"currency":"DZD","direction":"credit"},' +
  '{"account":"platform:fees:DZD","amount":1500,"currency":"DZD","direction":"credit"}' +
  '],"reference":"pay_1","sequence":1}';

const second: ChainedEntry = {
  sequence: 2,
  id: 'je_2',
  reference: 'ré"f\u2028', // a non-ASCII letter, a quote and U+2028: kept as UTF-8, escaped only where JSON must
  created_at: '2026-11-28T10:00:00.001Z',
  postings: [
    { account: 'platform:funding:XOF', direction: 'debit', amount: 5, currency: 'XOF' },
    { account: 'cus_2', direction: 'credit', amount: 5, currency: 'XOF' },
  ],
};
const SECOND_CANONICAL =
  '{"created_at":"2026-11-28T10:00:00.001Z","id":"je_2","postings":[' +
  '{"account":"platform:funding:XOF","amount":5,"currency":"XOF","direction":"debit"},' +
  '{"account":"cus_2","amount":5,"currency":"XOF","direction":"credit"}' +
  '],"reference":"ré\\"f\u2028","sequence":2}';

describe('the ledger hash chain', () => {
  it('canonicalizes exactly the covered fields, as RFC 8785 writes them', () => {
    expect(canonicalEntry(first)).toBe(FIRST_CANONICAL);
    expect(canonicalEntry(second)).toBe(SECOND_CANONICAL);
    // Other fields an entry carries (kind, object, hashes) are not covered.
    expect(canonicalEntry({ ...first, kind: 'payment', object: 'journal_entry', hash: 'x' } as ChainedEntry)).toBe(FIRST_CANONICAL);
  });

  it('hashes prev_hash, a newline and the canonical JSON with SHA-256, 64 zeros before sequence 1', () => {
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
    const h1 = sha256(`${GENESIS_HASH}\n${FIRST_CANONICAL}`);
    const h2 = sha256(`${h1}\n${SECOND_CANONICAL}`);
    expect(entryHash(GENESIS_HASH, first)).toBe(h1);
    expect(chainEntries(GENESIS_HASH, [first, second]).map((e) => [e.prev_hash, e.hash])).toEqual([
      [GENESIS_HASH, h1],
      [h1, h2],
    ]);
  });

  it('signs sequence.hash.signed_at', () => {
    expect(headMessage({ sequence: 2, hash: 'ab', signed_at: '2026-11-28T10:00:00.000Z' })).toBe('2.ab.2026-11-28T10:00:00.000Z');
  });

  describe('checkChain', () => {
    const third: ChainedEntry = { ...first, sequence: 3, id: 'je_3', reference: 'pay_3' };
    const chained = chainEntries(GENESIS_HASH, [first, second, third]);
    const start = { sequence: 0, hash: GENESIS_HASH };

    it('holds for an untouched chain, and continues from a cursor', () => {
      expect(checkChain(start, chained)).toEqual({ cursor: { sequence: 3, hash: chained[2]!.hash }, firstBroken: null });
      expect(checkChain({ sequence: 1, hash: chained[0]!.hash }, chained.slice(1)).firstBroken).toBeNull();
    });

    it("names a changed amount's entry", () => {
      const changed = chained.map((e) => (e.sequence === 2 ? { ...e, postings: [{ ...e.postings[0]!, amount: 6 }, e.postings[1]!] } : e));
      expect(checkChain(start, changed).firstBroken).toBe(2);
    });

    it("names a deleted entry's sequence", () => {
      expect(checkChain(start, [chained[0]!, chained[2]!]).firstBroken).toBe(2);
    });

    it('names the first of a swapped pair, whether the rows or only their sequences were swapped', () => {
      const rowsSwapped = [chained[0]!, { ...chained[2]!, sequence: 2 }, { ...chained[1]!, sequence: 3 }];
      expect(checkChain(start, rowsSwapped).firstBroken).toBe(2);
      const hashesKept = [chained[0]!, { ...chained[2]!, sequence: 2, hash: chained[1]!.hash }, { ...chained[1]!, sequence: 3, hash: chained[2]!.hash }];
      expect(checkChain(start, hashesKept).firstBroken).toBe(2);
    });
  });
});
