import { formatMoney } from './format';
import { parseTypedAmount } from './amounts';
import { LANGUAGES } from './languages';

describe('an amount typed as the page shows it', () => {
  it.each([
    ['en', '4,800.00', 480_000],
    ['en', 'DZD 4,800.00', 480_000],
    ['en', '4800', 480_000],
    ['en', '4,800', 480_000],
    ['ar', '٤٬٨٠٠٫٠٠', 480_000],
    ['ar', '4.800,00', 480_000],
    ['ar', '١٢٥٠٠٫٠٠', 1_250_000],
    ['ar', '12500.00', 1_250_000],
    ['fr', '4 800,00', 480_000],
    ['fr', '4 800,00 DA', 480_000],
    ['fr', '12 500,5', 1_250_050],
  ] as const)('%s: %s', (language, typed, minor) => {
    expect(parseTypedAmount(typed, 'DZD', language)).toBe(minor);
  });

  it('reads back every amount the page formats, in every language and currency', () => {
    for (const language of LANGUAGES)
      for (const [currency, minor] of [['DZD', 123_456_789], ['MAD', 480_000], ['TND', 12_345], ['XOF', 5_000]] as const)
        expect({ language, currency, read: parseTypedAmount(formatMoney(minor, currency, language), currency, language) }).toEqual({ language, currency, read: minor });
  });

  it('refuses what is no amount', () => {
    for (const typed of ['', 'abc', '4,80,0.00', '4.800.00,0', '1.234', '12,345.678', '-5', '0'])
      expect({ typed, read: parseTypedAmount(typed, 'DZD', 'en') }).toEqual({ typed, read: undefined });
  });
});
