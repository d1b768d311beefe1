import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { canonicalJson, LEDGER_GENESIS_HASH, verifyLedgerExport } from './ledger-chain';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** An export built by hand: each hash from a canonical string written out here. */
function buildExport(keys = generateKeyPairSync('ed25519')) {
  const bodies = [
    '{"created_at":"2026-11-28T10:00:00.000Z","id":"je_1","postings":[{"account":"platform:funding:DZD","amount":500,"currency":"DZD","direction":"debit"},{"account":"cus_1","amount":500,"currency":"DZD","direction":"credit"}],"reference":"top_1","sequence":1}',
    '{"created_at":"2026-11-28T10:00:01.000Z","id":"je_2","postings":[{"account":"cus_1","amount":200,"currency":"DZD","direction":"debit"},{"account":"conn_1","amount":200,"currency":"DZD","direction":"credit"}],"reference":"pay_1","sequence":2}',
    '{"created_at":"2026-11-28T10:00:02.000Z","id":"je_3","postings":[{"account":"cus_1","amount":100,"currency":"DZD","direction":"debit"},{"account":"conn_1","amount":100,"currency":"DZD","direction":"credit"}],"reference":"pay_2","sequence":3}',
  ];
  let prev = LEDGER_GENESIS_HASH;
  const entries = bodies.map((body) => {
    const parsed = JSON.parse(body);
    const hash = sha256(`${prev}\n${body}`);
    // Keys in the API's order, not the canonical one: the verifier must not depend on it.
    const entry = { sequence: parsed.sequence, id: parsed.id, reference: parsed.reference, created_at: parsed.created_at, postings: parsed.postings, prev_hash: prev, hash };
    prev = hash;
    return entry;
  });
  const signedAt = '2026-11-28T11:00:00.000Z';
  const signature = sign(null, Buffer.from(`3.${prev}.${signedAt}`), keys.privateKey).toString('base64');
  const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const head = { object: 'ledger_head', sequence: 3, hash: prev, signed_at: signedAt, key_id: 'lsk_test', signature, public_key: publicKey };
  return { entries, head, publicKey, keys };
}
const ndjson = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

describe('verifyLedgerExport', () => {
  it('writes RFC 8785 JSON: sorted keys, no whitespace', () => {
    expect(canonicalJson({ b: [1, 'x', { d: null, c: true }], a: 'é\n' })).toBe('{"a":"é\\n","b":[1,"x",{"c":true,"d":null}]}');
  });

  it('verifies an untouched export, with the key it carries or the one given', () => {
    const { entries, head, publicKey } = buildExport();
    expect(verifyLedgerExport(ndjson([...entries, head]))).toEqual({ valid: true, entries: 3, keyId: 'lsk_test' });
    expect(verifyLedgerExport(ndjson([...entries, head]), { publicKeyPem: publicKey }).valid).toBe(true);
  });

  it('names the sequence of a changed amount, a deleted entry, and the first of a swapped pair', () => {
    const { entries, head } = buildExport();
    const changed = entries.map((e) => (e.sequence === 2 ? { ...e, postings: [{ ...e.postings[0], amount: 201 }, e.postings[1]] } : e));
    expect(verifyLedgerExport(ndjson([...changed, head]))).toMatchObject({ valid: false, sequence: 2 });
    expect(verifyLedgerExport(ndjson([entries[0], entries[2], head]))).toMatchObject({ valid: false, sequence: 2 });
    expect(verifyLedgerExport(ndjson([entries[0], entries[2], entries[1], head]))).toMatchObject({ valid: false, sequence: 2 });
  });

  it('refuses a cut export, a head that does not name the last entry, and a signature by another key', () => {
    const { entries, head } = buildExport();
    expect(verifyLedgerExport(ndjson(entries))).toMatchObject({ valid: false, sequence: 4 });
    expect(verifyLedgerExport(ndjson([...entries.slice(0, 2), head]))).toMatchObject({ valid: false, sequence: 3 });
    expect(verifyLedgerExport(ndjson([...entries, { ...head, signed_at: '2026-11-28T11:00:00.001Z' }]))).toMatchObject({ valid: false, sequence: 3 });
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(verifyLedgerExport(ndjson([...entries, head]), { publicKeyPem: other })).toMatchObject({ valid: false, sequence: 3 });
  });
});
