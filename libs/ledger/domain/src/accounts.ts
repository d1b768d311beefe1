import { type Currency, hasPrefix, type IdKind, isCurrency } from '@pay/kernel';
import { cashPointAccount, type LedgerAccountKind, type OpenAccount, ServiceError } from '@pay/contracts';

/**
 * Account naming. An owner's account is identified by the owner id (`cus_…`, `conn_…`, `ben_…`); a
 * cash point holds one account per currency, `cp_…:<CUR>`; the platform's own accounts are
 * `platform:<kind>:<CUR>`.
 */
/** payouts_in_transit: payouts sent to the bank and not yet booked; paid_out: what the bank booked (money out of the ledger). */
export type PlatformAccountKind = 'fees' | 'funding' | 'cash' | 'cash_in_transit' | 'payouts_in_transit' | 'paid_out';

export const PLATFORM_ACCOUNT_KINDS = ['fees', 'funding', 'cash', 'cash_in_transit', 'payouts_in_transit', 'paid_out'] as const satisfies readonly PlatformAccountKind[];
export type AccountKind = LedgerAccountKind | `platform_${PlatformAccountKind}`;

export const platformAccount = (kind: PlatformAccountKind, currency: Currency): string => `platform:${kind}:${currency}`;

export const isPlatformAccount = (accountId: string): boolean => accountId.startsWith('platform:');

/**
 * Only these may go below zero: the counter-accounts of money outside the ledger, funding (the source
 * of top-ups) and cash (physical cash entering the system), and cash in transit, which an over-deposit
 * (the cash point counted more than was collected) takes below zero until the back office resolves it.
 * A cash point's account only ever gives back what it received: it never goes below zero.
 */
export const allowsNegativeBalance = (accountId: string): boolean =>
  accountId.startsWith('platform:funding:') || accountId.startsWith('platform:cash:') || accountId.startsWith('platform:cash_in_transit:');

const OWNER_ID_KIND: Readonly<Record<LedgerAccountKind, IdKind>> = {
  customer: 'customer',
  connection: 'connection',
  beneficiary: 'beneficiary',
  cash_point: 'cashPoint',
};

/** Rejects an open-account request whose owner id does not name an owner of its kind. */
export const checkOpenAccount = (request: OpenAccount): void => {
  if (typeof request.kind !== 'string' || !(request.kind in OWNER_ID_KIND)) {
    throw new ServiceError('invalid_request', 'kind must be customer, connection, beneficiary or cash_point', 'kind');
  }
  if (request.kind === 'cash_point') {
    const cashPointId = typeof request.owner === 'string' ? request.owner.split(':')[0]! : '';
    if (!hasPrefix(cashPointId, 'cashPoint') || !isCurrency(request.currency) || request.owner !== cashPointAccount(cashPointId, request.currency)) {
      throw new ServiceError('invalid_request', 'owner of a cash point account must be cp_…:<currency>', 'owner');
    }
  } else if (!hasPrefix(request.owner, OWNER_ID_KIND[request.kind])) {
    throw new ServiceError('invalid_request', `owner must be a ${request.kind} id`, 'owner');
  }
  if (!isCurrency(request.currency)) throw new ServiceError('unsupported_currency', 'currency must be DZD, MAD, TND or XOF', 'currency');
};
