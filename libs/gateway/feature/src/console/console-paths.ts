import { ID_LENGTH_MAX, ID_PREFIXES } from '@pay/kernel';
import { CONSOLE_PATH } from './console-sessions';

/** The kinds of object the search opens by id, each on its object page. */
export const SEARCHABLE_KINDS = ['payment', 'cashPayment', 'supplierPayment', 'collection', 'refund', 'payout', 'event', 'balanceTransaction', 'apiKey', 'connection', 'customer'] as const;
export type SearchableKind = (typeof SEARCHABLE_KINDS)[number];

const ID_SHAPE = new RegExp(`^([a-z]{2,4})_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);

/** The kind of a typed id (`pay_…`), when it is one the console has a page for. */
export const kindOfId = (text: string): SearchableKind | undefined => {
  const match = ID_SHAPE.exec(text);
  if (!match || text.length > ID_LENGTH_MAX) return undefined;
  return SEARCHABLE_KINDS.find((kind) => ID_PREFIXES[kind] === match[1]);
};

export const searchPath = (query?: string): string => `${CONSOLE_PATH}/search${query ? `?q=${encodeURIComponent(query)}` : ''}`;
export const objectPath = (id: string): string => `${CONSOLE_PATH}/objects/${encodeURIComponent(id)}`;
/** An account's page (the Accounts section). */
export const accountPath = (accountId: string): string => `${CONSOLE_PATH}/accounts/${encodeURIComponent(accountId)}`;
export const operationsPath = (): string => `${CONSOLE_PATH}/operations`;
