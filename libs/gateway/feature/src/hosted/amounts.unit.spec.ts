import { latinDigits, parseAmount } from './amounts';

describe('amounts typed by a cash agent', () => {
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
