import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_RANDOM_LENGTH = 24;

/** Uniform random base62 string: bytes >= 248 are rejected so that every character is equally likely. */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
};

export const ID_PREFIXES = {
  payment: 'pay',
  cashPayment: 'cpay',
  supplierPayment: 'spay',
  collection: 'col',
  beneficiary: 'ben',
  event: 'evt',
  integrator: 'int',
  apiKey: 'key',
  connection: 'conn',
  customer: 'cus',
  cashPoint: 'cp',
  topup: 'top',
  journalEntry: 'je',
  balanceTransaction: 'txn',
  refund: 're',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  businessUser: 'usr',
  agent: 'agt',
  request: 'req',
  /** A chain of background work (a sweep, a relay) and the bus requests it makes. */
  correlation: 'cor',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** A kind prefix and 24 random base62 characters (~142 bits): not guessable, not sequential. */
export const newId = (kind: IdKind): string => `${ID_PREFIXES[kind]}_${randomBase62(ID_RANDOM_LENGTH)}`;

export const hasPrefix = (value: unknown, kind: IdKind): value is string =>
  typeof value === 'string' && value.startsWith(`${ID_PREFIXES[kind]}_`) && value.length <= 64;
