import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { ServiceError } from '@pay/contracts';
import type { AnswerSeal, IdempotentRequest } from './idempotency';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A secret in a stored answer (`field`: an API key's `api_key`, a webhook endpoint's `secret`), sealed
 * with AES-256-GCM under a key derived from the caller's Authorization header (its secret, stored nowhere
 * but as a hash) and the Idempotency-Key: the database holds nothing that opens it, and only the same
 * caller's retry does. Another caller retrying the key gets 409 idempotency_key_reused. No seal without
 * an Idempotency-Key: nothing is stored then.
 */
export const secretSeal = (request: IdempotentRequest, idempotencyKey: string | undefined, field: string): AnswerSeal | undefined => {
  if (idempotencyKey === undefined) return undefined;
  const key = callerKey(request, idempotencyKey);
  const sealedField = `${field}_sealed`;
  return {
    close: (answer) => {
      const { [field]: secret, ...rest } = answer as Record<string, unknown>;
      if (typeof secret !== 'string') return answer;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return { ...rest, [sealedField]: Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64') };
    },
    open: (stored) => {
      const { [sealedField]: sealed, ...rest } = stored as Record<string, unknown>;
      if (typeof sealed !== 'string') return stored;
      const bytes = Buffer.from(sealed, 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const secret = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
        return { ...rest, [field]: secret };
      } catch {
        throw new ServiceError('idempotency_key_reused', 'this Idempotency-Key was used by another API key; use a new key for a new request');
      }
    },
  };
};

/**
 * The key of a stored request digest when the body holds a secret (a customer's PIN, a password): derived
 * as the seal's is, so that the database holds no plain hash a guess of the secret can be checked against.
 */
export const bodyKey = (request: IdempotentRequest, idempotencyKey: string | undefined): Buffer | undefined =>
  // Its own key, not the seal's: one key, one use.
  idempotencyKey === undefined ? undefined : createHmac('sha256', callerKey(request, idempotencyKey)).update('request digest').digest();

/** The scheme's case is the client's choice (RFC 9110 11.1): `bearer sk_…` derives what `Bearer sk_…` does. */
const callerKey = (request: IdempotentRequest, idempotencyKey: string): Buffer =>
  createHash('sha256').update(`${String(request.reply.request.headers.authorization).replace(/^bearer /i, 'Bearer ')}\n${idempotencyKey}`).digest();
