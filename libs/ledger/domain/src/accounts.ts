import { type Currency, hasPrefix, type IdKind, isCurrency } from '@pay/kernel';
import { type LedgerAccountKind, type OpenAccount, ServiceError } from '@pay/contracts';

/**
 * Account naming. An owner's account is identified by the owner id (`cus_…`, `conn_…`, `ben_…`);
 * the platform's own accounts by `platform:<kind>:<CUR>`.
 */
export type PlatformAccountKind = 'fees' | 'funding' | 'cash';
export type AccountKind = LedgerAccountKind | `platform_${PlatformAccountKind}`;

export const platformAccount = (kind: PlatformAccountKind, currency: Currency): string => `platform:${kind}:${currency}`;

export const isPlatformAccount = (accountId: string): boolean => accountId.startsWith('platform:');

/**
 * Only the counter-accounts of money outside the ledger may go below zero: funding (the source of
 * top-ups) and cash (cash received at cash points, credited on to merchants and wholesalers).
 */
export const allowsNegativeBalance = (accountId: string): boolean => accountId.startsWith('platform:funding:') || accountId.startsWith('platform:cash:');

const OWNER_ID_KIND: Readonly<Record<LedgerAccountKind, IdKind>> = {
  customer: 'customer',
  connection: 'connection',
  beneficiary: 'beneficiary',
};

/** Rejects an open-account request whose owner id does not name an owner of its kind. */
export const checkOpenAccount = (request: OpenAccount): void => {
  if (typeof request.kind !== 'string' || !(request.kind in OWNER_ID_KIND)) {
    throw new ServiceError('invalid_request', 'kind must be customer, connection or beneficiary', 'kind');
  }
  if (!hasPrefix(request.owner, OWNER_ID_KIND[request.kind])) {
    throw new ServiceError('invalid_request', `owner must be a ${request.kind} id`, 'owner');
  }
  if (!isCurrency(request.currency)) throw new ServiceError('unsupported_currency', 'currency must be DZD, MAD, TND or XOF', 'currency');
};
