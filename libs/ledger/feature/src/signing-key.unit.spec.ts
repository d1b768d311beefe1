import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvReader } from '@pay/kernel';
import { readLedgerSigningKey, SIGNING_KEY_FILE } from './signing-key';

const read = (env: Record<string, string> = {}) => new EnvReader(env);

describe('readLedgerSigningKey', () => {
  it('generates a key once under DATA_DIR (mode 0600) and reads the same one at the next start', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'ledger-key-')), 'data');
    const first = readLedgerSigningKey(read(), dataDir);
    const file = join(dataDir, SIGNING_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('-----BEGIN PRIVATE KEY-----');
    const second = readLedgerSigningKey(read(), dataDir);
    expect(second.keyId).toBe(first.keyId);
    expect(first.keyId).toMatch(/^lsk_[0-9a-f]{24}$/);
    const signature = second.sign('1.ab.2026-11-28T10:00:00.000Z');
    expect(verify(null, Buffer.from('1.ab.2026-11-28T10:00:00.000Z'), createPublicKey(first.publicKey), Buffer.from(signature, 'base64'))).toBe(true);
  });

  it('takes LEDGER_SIGNING_KEY (a PEM, or one line with \\n) and writes nothing', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const dataDir = join(mkdtempSync(join(tmpdir(), 'ledger-key-')), 'data');
    const key = readLedgerSigningKey(read({ LEDGER_SIGNING_KEY: pem }), dataDir);
    expect(key.publicKey).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    expect(readLedgerSigningKey(read({ LEDGER_SIGNING_KEY: pem.replace(/\n/g, '\\n') }), dataDir).keyId).toBe(key.keyId);
    expect(() => statSync(dataDir)).toThrow();
  });

  it('refuses a key that is not an Ed25519 PKCS #8 PEM, without echoing it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    for (const value of ['not a key', rsa]) {
      const reader = read({ LEDGER_SIGNING_KEY: value });
      readLedgerSigningKey(reader, '/nonexistent');
      expect(reader.problems).toHaveLength(1);
      expect(reader.problems[0]).toMatch(/^LEDGER_SIGNING_KEY must be/);
      expect(reader.problems[0]).not.toContain(value.slice(0, 40));
      expect(() => reader.done()).toThrow();
    }
  });
});
