import { decimalAmount, formatAmount } from './display';
import { computeFee, isValidAmount, latinDigits, parseAmount } from './money';

describe('money', () => {
  it('rounds the proportional fee half up and adds the fixed part', () => {
    expect(computeFee(1_250_000, { basisPoints: 150, fixedMinor: 0 })).toEqual({ feeMinor: 18_750, netMinor: 1_231_250 });
    expect(computeFee(50, { basisPoints: 150, fixedMinor: 0 })).toEqual({ feeMinor: 1, netMinor: 49 }); // 0.75 -> 1
    expect(computeFee(30, { basisPoints: 150, fixedMinor: 0 })).toEqual({ feeMinor: 0, netMinor: 30 }); // 0.45 -> 0
    expect(computeFee(100, { basisPoints: 50, fixedMinor: 10 })).toEqual({ feeMinor: 11, netMinor: 89 }); // 0.5 -> 1
  });

  it('never takes more than the amount', () => {
    expect(computeFee(5, { basisPoints: 100, fixedMinor: 20 })).toEqual({ feeMinor: 5, netMinor: 0 });
  });

  it('is exact at the largest amount', () => {
    expect(computeFee(100_000_000_000, { basisPoints: 9_999, fixedMinor: 0 })).toEqual({ feeMinor: 99_990_000_000, netMinor: 10_000_000 });
  });

  it('accepts only integers from 1 to 1e11', () => {
    expect([0, 1, 100_000_000_000, 100_000_000_001, 1.5, '5', -1].map(isValidAmount)).toEqual([false, true, true, false, false, false, false]);
  });
});

describe('formatAmount', () => {
  it('uses each currency’s real scale, exactly, with grouped digits', () => {
    expect(formatAmount(1_250_000, 'DZD')).toBe('12\u202f500.00 DZD');
    expect(formatAmount(5, 'MAD')).toBe('0.05 MAD');
    expect(formatAmount(1_234_567, 'TND')).toBe('1\u202f234.567 TND');
    expect(formatAmount(1_500, 'XOF')).toBe('1\u202f500 XOF');
    expect(formatAmount(100_000_000_000, 'TND')).toBe('100\u202f000\u202f000.000 TND');
  });
});

describe('decimalAmount', () => {
  it('is the exact decimal of minor units in the currency scale', () => {
    expect([decimalAmount(1_250_000, 'DZD'), decimalAmount(5, 'MAD'), decimalAmount(12_345, 'TND'), decimalAmount(1_500, 'XOF')]).toEqual(['12500.00', '0.05', '12.345', '1500']);
    expect(decimalAmount(100_000_000_000, 'TND')).toBe('100000000.000');
    expect(() => decimalAmount(1.5, 'DZD')).toThrow(RangeError);
  });
});

describe('amounts typed by a cash agent (parseAmount)', () => {
  it('reads units in the currency scale, spaces and a decimal comma allowed', () => {
    expect(parseAmount('12 500.00', 'DZD')).toBe(1_250_000);
    expect(parseAmount('12500,5', 'DZD')).toBe(1_250_050);
    expect(parseAmount('12.345', 'TND')).toBe(12_345);
    expect(parseAmount('1500', 'XOF')).toBe(1_500);
  });

  it('reads Arabic-Indic digits and the Arabic decimal separator', () => {
    expect(latinDigits('٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹')).toBe('0123456789 0123456789');
    expect(parseAmount('١٢٥٠٠٫٠٠', 'DZD')).toBe(1_250_000);
  });

  it('refuses what is not an amount of the currency', () => {
    for (const typed of ['', '12.345', '1e5', '-5', '12,500.00', 'abc', '0']) expect(parseAmount(typed, 'DZD')).toBeUndefined();
    expect(parseAmount('1.5', 'XOF')).toBeUndefined();
    expect(parseAmount('0', 'DZD', true)).toBe(0);
  });
});
