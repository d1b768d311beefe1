import { createHash, createPublicKey, type KeyObject, verify as verifySignature } from 'node:crypto';

/**
 * Offline verification of a ledger chain export (`GET /admin/v1/ledger/chain/export`): one chain entry
 * per line from sequence 1, then the signed head. With node:crypto only, and RFC 8785 written out here
 * (the SDK has no dependencies): for the JSON an entry holds (strings, integers, arrays, objects), the
 * canonical form is JSON.stringify's strings and numbers, no whitespace, and object keys sorted by their
 * UTF-16 code units, which is what Array.prototype.sort compares.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') throw new TypeError(`canonical JSON has no ${typeof value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

export const LEDGER_GENESIS_HASH = '0'.repeat(64);

/** A signing key's id: `lsk_` and the start of the SHA-256 of its public key (SPKI DER), so every holder of the key names it alike. */
export function ledgerSigningKeyId(publicKey: KeyObject): string {
  return `lsk_${createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 24)}`;
}

export interface LedgerChainEntry {
  sequence: number;
  id: string;
  reference: string;
  created_at: string;
  postings: { account: string; direction: string; amount: number; currency: string }[];
  prev_hash: string;
  hash: string;
}

/** The hash an entry must have after `prevHash`: SHA-256 of `prevHash + "\n" + canonical JSON` of exactly the covered fields. */
export function ledgerEntryHash(prevHash: string, entry: Omit<LedgerChainEntry, 'prev_hash' | 'hash'>): string {
  const covered = {
    sequence: entry.sequence,
    id: entry.id,
    reference: entry.reference,
    created_at: entry.created_at,
    postings: entry.postings.map(({ account, direction, amount, currency }) => ({ account, direction, amount, currency })),
  };
  return createHash('sha256').update(`${prevHash}\n${canonicalJson(covered)}`, 'utf8').digest('hex');
}

export type LedgerExportResult = { valid: true; entries: number; keyId: string } | { valid: false; sequence: number; reason: string };

/**
 * Checks an export line by line (feed `line`, then `finish`): each entry's place (1, 2, 3, …), its
 * prev_hash, and its hash recomputed; then that the head names the last entry and its signature holds,
 * by `publicKeyPem` when given (a key kept apart from the service), else by the key the export carries
 * (which proves the file is whole, not who wrote it). The first failure is kept, with its sequence.
 */
export class LedgerExportVerifier {
  private expected = 1;
  private prevHash = LEDGER_GENESIS_HASH;
  private head: Record<string, unknown> | undefined;
  private failure: { sequence: number; reason: string } | undefined;

  constructor(private readonly publicKeyPem?: string) {}

  line(text: string): void {
    if (this.failure || text.trim() === '') return;
    if (this.head) return this.fail(this.expected, 'a line follows the head: the head must be the last line');
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return this.fail(this.expected, 'a line is not JSON');
    }
    if (value['object'] === 'ledger_head') {
      this.head = value;
      return;
    }
    const entry = value as unknown as LedgerChainEntry;
    if (entry.sequence !== this.expected) return this.fail(this.expected, `expected sequence ${this.expected}, found ${JSON.stringify(entry.sequence)} (an entry is missing or out of order)`);
    if (entry.prev_hash !== this.prevHash) return this.fail(this.expected, "its prev_hash is not the previous entry's hash");
    if (!Array.isArray(entry.postings)) return this.fail(this.expected, 'it has no postings');
    let hash: string;
    try {
      hash = ledgerEntryHash(this.prevHash, entry);
    } catch (error) {
      return this.fail(this.expected, (error as Error).message);
    }
    if (hash !== entry.hash) return this.fail(this.expected, `its hash does not match its content (recomputed ${hash})`);
    this.prevHash = hash;
    this.expected++;
  }

  finish(): LedgerExportResult {
    const last = this.expected - 1;
    if (!this.failure) this.checkHead(last);
    if (this.failure) return { valid: false, ...this.failure };
    return { valid: true, entries: last, keyId: String(this.head!['key_id']) };
  }

  private checkHead(last: number): void {
    const head = this.head;
    if (!head) return this.fail(last + 1, 'the export has no signed head (its last line): it was cut short');
    const sequence = head['sequence'];
    if (typeof sequence !== 'number' || sequence !== last) {
      return this.fail(typeof sequence === 'number' && sequence > last ? last + 1 : Math.max(1, last), `the head is at sequence ${JSON.stringify(sequence)}, the entries end at ${last}`);
    }
    if (head['hash'] !== this.prevHash) return this.fail(Math.max(1, last), "the head's hash is not the last entry's");
    const pem = this.publicKeyPem ?? (typeof head['public_key'] === 'string' ? head['public_key'] : undefined);
    if (pem === undefined) return this.fail(Math.max(1, last), 'no public key: pass one (the export carries none)');
    let valid = false;
    let keyId: string;
    try {
      const publicKey = createPublicKey(pem);
      keyId = ledgerSigningKeyId(publicKey);
      const message = `${sequence}.${String(head['hash'])}.${String(head['signed_at'])}`;
      valid = verifySignature(null, Buffer.from(message, 'utf8'), publicKey, Buffer.from(String(head['signature']), 'base64'));
    } catch (error) {
      return this.fail(Math.max(1, last), `the public key cannot check the signature (${(error as Error).message})`);
    }
    if (!valid) return this.fail(Math.max(1, last), `the head's signature does not hold${this.publicKeyPem ? ' for the public key given' : ''}`);
    // A head re-signed with another key must not pass under the id of the service's key.
    if (head['key_id'] !== keyId) return this.fail(Math.max(1, last), `the head's key_id ${JSON.stringify(head['key_id'])} does not name the key that signed it (${keyId})`);
  }

  private fail(sequence: number, reason: string): void {
    this.failure ??= { sequence, reason };
  }
}

/** The whole export at once (small exports, tests). */
export function verifyLedgerExport(ndjson: string, options: { publicKeyPem?: string } = {}): LedgerExportResult {
  const verifier = new LedgerExportVerifier(options.publicKeyPem);
  for (const line of ndjson.split('\n')) verifier.line(line);
  return verifier.finish();
}
