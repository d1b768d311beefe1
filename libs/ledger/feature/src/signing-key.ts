import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { join } from 'node:path';
import { type EnvReader } from '@pay/kernel';
import { readOrCreateSecretFile } from '@pay/platform';
import { ledgerSigningKeyId } from '@pay/sdk';

/** The Ed25519 key that signs the chain's head. The private half is never logged nor stored in the database. */
export interface LedgerSigningKey {
  /** `lsk_` and the start of the SHA-256 of the public key (SPKI DER): every instance with the same key names it alike. */
  keyId: string;
  /** PEM SPKI, as `signing_keys` lists it. */
  publicKey: string;
  sign(message: string): string;
}

/** The file under DATA_DIR that keeps a generated key (mode 0600). */
export const SIGNING_KEY_FILE = 'ledger-signing-key.pem';

/**
 * LEDGER_SIGNING_KEY (a PKCS #8 PEM of an Ed25519 key), or the key generated once under DATA_DIR. Several
 * ledger instances must sign with one key: they share it through LEDGER_SIGNING_KEY (a secret), or
 * through one DATA_DIR on one machine (the all-in-one service, the local distributed topology).
 */
export function readLedgerSigningKey(read: EnvReader, dataDir: string): LedgerSigningKey {
  const given = read.string('LEDGER_SIGNING_KEY');
  if (given !== undefined) {
    // A PEM in one line of an env file keeps its line breaks as \n.
    const key = parseKey(given.replace(/\\n/g, '\n'));
    if (typeof key === 'string') {
      read.problems.push(`LEDGER_SIGNING_KEY ${key}`);
      // Never used: read.done() refuses the configuration.
      return signingKey(generateKeyPairSync('ed25519').privateKey);
    }
    return signingKey(key);
  }
  // A DATA_DIR already refused (read.problems) is not written to; the configuration is refused anyway.
  if (read.problems.length > 0) return signingKey(generateKeyPairSync('ed25519').privateKey);
  try {
    return signingKey(keyUnder(dataDir));
  } catch (error) {
    read.problems.push(`DATA_DIR: the ledger's signing key: ${error instanceof Error ? error.message : String(error)}`);
    return signingKey(generateKeyPairSync('ed25519').privateKey);
  }
}

function parseKey(pem: string): KeyObject | string {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return 'must be a PKCS #8 PEM private key (-----BEGIN PRIVATE KEY-----)'; // never the value itself
  }
  return key.asymmetricKeyType === 'ed25519' ? key : `must be an Ed25519 key, not ${key.asymmetricKeyType}`;
}

/** The key kept in DATA_DIR, made at first start (shared by the instances starting together on it). */
function keyUnder(dataDir: string): KeyObject {
  const file = join(dataDir, SIGNING_KEY_FILE);
  const { secret } = readOrCreateSecretFile(file, () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  try {
    return createPrivateKey(secret);
  } catch {
    throw new Error(`${file} is not a readable PEM private key: remove it only if no head it signed matters, or set LEDGER_SIGNING_KEY`);
  }
}

export function signingKey(privateKey: KeyObject): LedgerSigningKey {
  const publicKey = createPublicKey(privateKey);
  return {
    // The offline verifier's own derivation: a head whose key_id does not name its key fails there.
    keyId: ledgerSigningKeyId(publicKey),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
}
