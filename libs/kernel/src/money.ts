import { AMOUNT_MAX_MINOR, AMOUNT_MIN_MINOR, AMOUNT_TYPED_DIGITS_MAX } from './limits';

/** The four settlement currencies and their minor-unit scale (ISO 4217 exponent). */
export const CURRENCIES = ['DZD', 'MAD', 'TND', 'XOF'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const CURRENCY_SCALE: Readonly<Record<Currency, number>> = { DZD: 2, MAD: 2, TND: 3, XOF: 0 };

export const isCurrency = (value: unknown): value is Currency =>
  typeof value === 'string' && (CURRENCIES as readonly string[]).includes(value);

/** Amounts accepted on the API, in minor units (contract section 2): AMOUNT_MIN_MINOR to AMOUNT_MAX_MINOR. */
export const isValidAmount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= AMOUNT_MIN_MINOR && value <= AMOUNT_MAX_MINOR;

/** A fee is basis points of the amount plus a fixed part, both in the transfer's currency. */
export interface FeeRule {
  readonly basisPoints: number;
  readonly fixedMinor: number;
}

/**
 * fee = fixed + round_half_up(amount * basisPoints / 10000), capped at the amount so that the net
 * amount is never negative. Computed with BigInt: exact for every amount the API accepts.
 */
export const computeFee = (amountMinor: number, rule: FeeRule): { feeMinor: number; netMinor: number } => {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError(`amount ${amountMinor} is not a non-negative integer`);
  if (!Number.isInteger(rule.basisPoints) || rule.basisPoints < 0 || rule.basisPoints > 10_000) throw new RangeError('basisPoints must be 0..10000');
  if (!Number.isSafeInteger(rule.fixedMinor) || rule.fixedMinor < 0) throw new RangeError('fixedMinor must be a non-negative integer');
  const proportional = (BigInt(amountMinor) * BigInt(rule.basisPoints) * 2n + 10_000n) / 20_000n;
  const fee = BigInt(rule.fixedMinor) + proportional;
  const feeMinor = Number(fee > BigInt(amountMinor) ? BigInt(amountMinor) : fee);
  return { feeMinor, netMinor: amountMinor - feeMinor };
};

/** Arabic-Indic and Eastern Arabic-Indic digits (an Arabic keyboard's) as Latin digits. */
export const latinDigits = (text: string): string =>
  text.replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String((d.codePointAt(0)! - (d >= '\u06f0' ? 0x06f0 : 0x0660)) % 10));

const TYPED_AMOUNT = new RegExp(`^(\\d{1,${AMOUNT_TYPED_DIGITS_MAX}})(?:\\.(\\d+))?$`);

/**
 * An amount typed in the currency's units ("12 500.00", "12500,5", "١٢٥٠٠", "1500" XOF) as minor
 * units; spaces ignored; at most the currency's decimals. Undefined when it is not one (0 only when
 * `zeroAllowed`). The reverse of formatAmount and decimalAmount (display.ts).
 */
export const parseAmount = (typed: string, currency: Currency, zeroAllowed = false): number | undefined => {
  const text = latinDigits(typed).replace(/[\s\u202f\u00a0]/g, '').replace(/[,\u066b]/, '.');
  const scale = CURRENCY_SCALE[currency];
  const match = TYPED_AMOUNT.exec(text);
  if (!match || (match[2] ?? '').length > scale) return undefined;
  const minor = Number(match[1]) * 10 ** scale + Number((match[2] ?? '').padEnd(scale, '0') || '0');
  if (!Number.isSafeInteger(minor) || (minor === 0 && !zeroAllowed)) return undefined;
  return minor;
};
