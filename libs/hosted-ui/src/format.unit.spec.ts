import { formatDateTime, formatMoney } from './format';
import { translator } from './i18n';

/** Intl's spaces (narrow no-break, no-break) and bidi marks, as plain spaces and nothing. */
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, ' ').replace(/[\u200e\u200f\u061c\u2066-\u2069]/g, '');

describe('money and time for people', () => {
  it('formats minor units per locale, in the currency scale (DZD, MAD 2, TND 3, XOF 0), with Latin digits', () => {
    expect(plain(formatMoney(1_250_000, 'DZD', 'fr'))).toBe('12 500,00 DA');
    expect(plain(formatMoney(1_250_000, 'DZD', 'ar'))).toBe('12.500,00 د.ج.');
    expect(plain(formatMoney(1_250_000, 'DZD', 'en'))).toBe('DZD 12,500.00');
    expect(plain(formatMoney(5, 'MAD', 'fr'))).toBe('0,05 MAD');
    expect(plain(formatMoney(12_345, 'TND', 'fr'))).toBe('12,345 DT');
    expect(plain(formatMoney(5_000, 'XOF', 'fr'))).toBe('5 000 F CFA');
  });

  it('is exact at the largest amount', () => {
    expect(plain(formatMoney(100_000_000_000, 'TND', 'en'))).toBe('TND 100,000,000.000');
    expect(plain(formatMoney(99_999_999_999, 'DZD', 'en'))).toBe('DZD 999,999,999.99');
  });

  it("shows an instant in the local time of the currency's country, the zone named", () => {
    const at = '2026-11-22T10:00:00.000Z';
    expect(plain(formatDateTime(at, 'DZD', 'fr', translator('fr')))).toBe('22 novembre 2026 à 11:00 (heure d’Alger, UTC+1)');
    expect(plain(formatDateTime(at, 'XOF', 'en', translator('en')))).toBe('November 22, 2026 at 10:00 (Dakar time, UTC+0)');
    expect(plain(formatDateTime(at, 'TND', 'ar', translator('ar')))).toBe('22 نوفمبر 2026 في 11:00 (بتوقيت تونس، UTC+1)');
    expect(plain(formatDateTime(at, 'MAD', 'fr', translator('fr')))).toMatch(/^22 novembre 2026 à 11:00 \(heure de Casablanca, UTC\+1\)$/);
  });
});
