import { CURRENCY_SCALE, type Currency } from './money';

/**
 * Minor units as a decimal string in the currency's real scale, exactly (no floating point):
 * 1250000 DZD → "12500.00", 12345 TND → "12.345", 1500 XOF → "1500".
 */
export const decimalAmount = (amountMinor: number, currency: Currency): string => {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError(`amount ${amountMinor} is not a non-negative integer`);
  const scale = CURRENCY_SCALE[currency];
  const digits = String(amountMinor).padStart(scale + 1, '0');
  const units = digits.slice(0, digits.length - scale);
  return scale === 0 ? units : `${units}.${digits.slice(-scale)}`;
};

/**
 * Minor units as a person reads them, exactly, digits grouped by a narrow no-break space:
 * 1250000 DZD → "12 500.00 DZD", 1500 XOF → "1 500 XOF". (The hosted pages format per locale.)
 */
export const formatAmount = (amountMinor: number, currency: Currency): string => {
  const [units = '', fraction] = decimalAmount(amountMinor, currency).split('.');
  const grouped = units.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return fraction === undefined ? `${grouped} ${currency}` : `${grouped}.${fraction} ${currency}`;
};
