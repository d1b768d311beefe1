import { randomInt } from 'node:crypto';
import {
  dammCheckDigit,
  groupPaymentReference,
  hasValidDammCheckDigit,
  parsePaymentReference,
  paymentReferenceFrom,
} from './payment-reference';
import { PAYMENT_REFERENCE_LENGTH } from '@pay/kernel';

const randomDigits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join('');
const samples = [
  '000000000',
  '999999999',
  '123456789',
  '572000000',
  ...Array.from({ length: 200 }, () => randomDigits(9)),
].map(paymentReferenceFrom);

/** Every reference one wrong digit away from `reference`. */
const singleDigitErrors = (reference: string): string[] =>
  [...reference].flatMap((digit, i) =>
    '0123456789'
      .split('')
      .filter((d) => d !== digit)
      .map((d) => reference.slice(0, i) + d + reference.slice(i + 1)),
  );

/** Every reference with two adjacent, different digits swapped. */
const adjacentTranspositions = (reference: string): string[] =>
  [...reference.slice(1)].flatMap((_, i) =>
    reference[i] === reference[i + 1] ? [] : [reference.slice(0, i) + reference[i + 1] + reference[i] + reference.slice(i + 2)],
  );

describe('payment reference: 9 random digits and a Damm check digit', () => {
  it("Damm's algorithm on its published example: 572 has check digit 4", () => {
    expect(dammCheckDigit('572')).toBe('4');
    expect(hasValidDammCheckDigit('5724')).toBe(true);
    expect(hasValidDammCheckDigit('5723')).toBe(false);
  });

  it('is 10 digits long and carries a valid check digit', () => {
    for (const reference of samples) {
      expect(reference).toMatch(/^[0-9]{10}$/);
      expect(reference).toHaveLength(PAYMENT_REFERENCE_LENGTH);
      expect(parsePaymentReference(reference)).toBe(reference);
    }
  });

  it('every single mistyped digit is refused, never matched to another reference', () => {
    for (const reference of samples) {
      for (const typo of singleDigitErrors(reference)) expect({ typo, parsed: parsePaymentReference(typo) }).toEqual({ typo, parsed: null });
    }
  });

  it('every adjacent transposition is refused', () => {
    for (const reference of samples) {
      for (const typo of adjacentTranspositions(reference)) expect({ typo, parsed: parsePaymentReference(typo) }).toEqual({ typo, parsed: null });
    }
  });

  it('a reference read out in groups, with spaces or hyphens, is the same reference', () => {
    const reference = samples[2]!;
    expect(groupPaymentReference(reference)).toBe(`123 456 789${reference[9]}`);
    expect(parsePaymentReference(groupPaymentReference(reference))).toBe(reference);
    expect(parsePaymentReference(`${reference.slice(0, 5)}-${reference.slice(5)}`)).toBe(reference);
  });

  it('malformed input is refused: too short, too long, not digits', () => {
    const reference = samples[4]!;
    for (const input of ['', reference.slice(1), `${reference}0`, `${reference.slice(0, 9)}x`, 'abcdefghij', ' '.repeat(40)]) {
      expect(parsePaymentReference(input)).toBeNull();
    }
    expect(() => paymentReferenceFrom('12345678')).toThrow(RangeError);
    expect(() => paymentReferenceFrom('12345678a')).toThrow(RangeError);
  });
});
