import { PAYMENT_REFERENCE_INPUT_LENGTH_MAX, PAYMENT_REFERENCE_LENGTH, PAYMENT_REFERENCE_RANDOM_DIGITS } from '@pay/kernel';

/**
 * The payment reference a customer reads out at a cash point: 9 random digits and a Damm check digit
 * (10 digits). Damm's quasigroup detects every single-digit error and every adjacent transposition,
 * so a mistyped reference is refused instead of matching another payment. The canonical form is the
 * 10 digits; people see it grouped (`482 109 3756`), and input may carry spaces or hyphens.
 */
/** Damm's table: a totally anti-symmetric quasigroup of order 10 with a zero diagonal. */
const DAMM: readonly (readonly number[])[] = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2],
  [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
  [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8],
  [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4],
  [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
  [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
];

const DIGITS = /^[0-9]+$/;

/** The interim digit of Damm's algorithm over `digits`: the check digit to append, or 0 when `digits` end with a valid one. */
const dammInterim = (digits: string): number => {
  if (!DIGITS.test(digits)) throw new RangeError('Damm check digits are computed over decimal digits only');
  let interim = 0;
  for (const digit of digits) interim = DAMM[interim]![Number(digit)]!;
  return interim;
};

export const dammCheckDigit = (digits: string): string => String(dammInterim(digits));

export const hasValidDammCheckDigit = (digits: string): boolean => DIGITS.test(digits) && dammInterim(digits) === 0;

/** The reference for 9 random digits (chosen by the caller: the domain stays pure). */
export const paymentReferenceFrom = (randomDigits: string): string => {
  if (randomDigits.length !== PAYMENT_REFERENCE_RANDOM_DIGITS || !DIGITS.test(randomDigits)) {
    throw new RangeError(`a payment reference is made of ${PAYMENT_REFERENCE_RANDOM_DIGITS} random digits`);
  }
  return randomDigits + dammCheckDigit(randomDigits);
};

/**
 * Reads a reference as typed at a counter (spaces and hyphens ignored): the canonical 10 digits, or
 * null when it is malformed or its check digit is wrong (a typo), never another payment's reference.
 */
export const parsePaymentReference = (input: string): string | null => {
  if (input.length > PAYMENT_REFERENCE_INPUT_LENGTH_MAX) return null;
  const digits = input.replace(/[\s-]/g, '');
  return digits.length === PAYMENT_REFERENCE_LENGTH && hasValidDammCheckDigit(digits) ? digits : null;
};

/** `4821093756` → `482 109 3756`, as printed on the instructions page. */
export const groupPaymentReference = (reference: string): string => `${reference.slice(0, 3)} ${reference.slice(3, 6)} ${reference.slice(6)}`;
