import { CURRENCY_SCALE, decimalAmount, type Currency } from '@pay/kernel';
import type { Translate } from './i18n';
import type { Language } from './languages';

/** Where a currency's customers are: their time zone and the country that shapes number and date formats. */
export const ZONE_OF_CURRENCY = { DZD: 'Africa/Algiers', MAD: 'Africa/Casablanca', TND: 'Africa/Tunis', XOF: 'Africa/Dakar' } as const satisfies Record<Currency, string>;
export type TimeZone = (typeof ZONE_OF_CURRENCY)[Currency];
export const COUNTRY_OF_CURRENCY: Readonly<Record<Currency, string>> = { DZD: 'DZ', MAD: 'MA', TND: 'TN', XOF: 'SN' };

/** `fr-DZ`, `ar-MA`…, with Latin digits: those of receipts, keyboards and the references people type there. */
export const localeOf = (language: Language, currency: Currency): string => `${language}-${COUNTRY_OF_CURRENCY[currency]}-u-nu-latn`;

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const cached = <T>(cache: Map<string, T>, key: string, make: () => T): T => {
  let value = cache.get(key);
  if (value === undefined) cache.set(key, (value = make()));
  return value;
};

/** Intl accepts a decimal string and formats it exactly (ES2023); the ES2022 typings only know numbers. */
type ExactFormat = (value: string) => string;

/** Minor units as the customer reads money: `12 500,00 DA`, `‏12.500,00 د.ج.‏`, `DZD 12,500.00`, in the currency's scale. */
export const formatMoney = (amountMinor: number, currency: Currency, language: Language): string => {
  const locale = localeOf(language, currency);
  const format = cached(numberFormats, `${locale} ${currency}`, () => {
    const scale = CURRENCY_SCALE[currency];
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: scale, maximumFractionDigits: scale });
  });
  return (format.format as unknown as ExactFormat)(decimalAmount(amountMinor, currency));
};

/** Like formatMoney, a negative amount too (a ledger account's balance may be below zero): `-12 500,00 DA`. */
export const formatSignedMoney = (amountMinor: number, currency: Currency, language: Language): string => {
  if (amountMinor >= 0) return formatMoney(amountMinor, currency, language);
  const locale = localeOf(language, currency);
  const format = cached(numberFormats, `${locale} ${currency}`, () => {
    const scale = CURRENCY_SCALE[currency];
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: scale, maximumFractionDigits: scale });
  });
  return (format.format as unknown as ExactFormat)(`-${decimalAmount(-amountMinor, currency)}`);
};

/** `UTC+1`, `UTC` for an instant in a zone (Morocco's offset changes during Ramadan: it is computed, not stored). */
const offsetOf = (date: Date, zone: TimeZone): string => {
  const format = cached(dateFormats, `offset ${zone}`, () => new Intl.DateTimeFormat('en-u-nu-latn', { timeZone: zone, timeZoneName: 'shortOffset' }));
  return (format.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT').replace('GMT', 'UTC');
};

/**
 * An instant in the local time of the currency's country, the zone named: "22 novembre 2026 à 11:00
 * (heure d’Alger, UTC+1)". A 24-hour clock, as people there read times.
 */
export const formatDateTime = (iso: string, currency: Currency, language: Language, t: Translate): string => {
  const zone = ZONE_OF_CURRENCY[currency];
  const locale = localeOf(language, currency);
  const format = cached(dateFormats, `${locale} ${zone}`, () =>
    new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone }),
  );
  const date = new Date(iso);
  return t('time.with_zone', { time: format.format(date), zone: t(`zone.${zone}`), offset: offsetOf(date, zone) });
};
