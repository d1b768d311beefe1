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
  // lsk_ and the start of the SHA-256 of the public key's SPKI DER, written out here as the service derives it.
  const keyId = `lsk_${createHash('sha256').update(keys.publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 24)}`;
  const head = { object: 'ledger_head', sequence: 3, hash: prev, signed_at: signedAt, key_id: keyId, signature, public_key: publicKey };
  return { entries, head, publicKey, keys };
}
const ndjson = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

describe('verifyLedgerExport', () => {
  it('writes RFC 8785 JSON: sorted keys, no whitespace', () => {
    expect(canonicalJson({ b: [1, 'x', { d: null, c: true }], a: 'é\n' })).toBe('{"a":"é\\n","b":[1,"x",{"c":true,"d":null}]}');
  });

  it('verifies an untouched export, with the key it carries or the one given', () => {
    const { entries, head, publicKey } = buildExport();
    expect(verifyLedgerExport(ndjson([...entries, head]))).toEqual({ valid: true, entries: 3, keyId: head.key_id });
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

  it("refuses a head whose key_id does not name the key that signed it (a forged export re-signed with another key, under the service's key id)", () => {
    const genuine = buildExport();
    // Amounts changed, every hash recomputed, the head signed by a key of the forger's, the service's key id kept.
    const forged = buildExport();
    const head = { ...forged.head, key_id: genuine.head.key_id };
    expect(verifyLedgerExport(ndjson([...forged.entries, head]))).toMatchObject({ valid: false, sequence: 3, reason: expect.stringContaining('key_id') });
    // The same with the forger's public key given: the head still names a key it was not signed by.
    expect(verifyLedgerExport(ndjson([...forged.entries, head]), { publicKeyPem: forged.publicKey })).toMatchObject({ valid: false, sequence: 3 });
    expect(verifyLedgerExport(ndjson([...forged.entries, forged.head])).valid).toBe(true);
  });
});
