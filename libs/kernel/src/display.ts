import { CURRENCY_SCALE, type Currency } from './money';

/**
 * Minor units as a person reads them, exactly (no floating point), in the currency's real scale,
 * digits grouped by a narrow no-break space: 1250000 DZD → "12 500.00 DZD", 1500 XOF → "1 500 XOF".
 */
export const formatAmount = (amountMinor: number, currency: Currency): string => {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError(`amount ${amountMinor} is not a non-negative integer`);
  const scale = CURRENCY_SCALE[currency];
  const digits = String(amountMinor).padStart(scale + 1, '0');
  const units = digits.slice(0, digits.length - scale).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return scale === 0 ? `${units} ${currency}` : `${units}.${digits.slice(-scale)} ${currency}`;
};

/** A time for people: "2026-11-22 10:00 UTC". */
export const formatTime = (iso: string): string => `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
