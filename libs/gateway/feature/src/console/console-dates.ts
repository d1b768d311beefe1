import { ServiceError } from '@pay/contracts';
import { ZONE_OF_CURRENCY } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';
import { localInstant } from './charts';

/** A calendar date in the console's own links and once read from its forms: a day of the currency's country. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * A date typed in a form: day first, DD/MM/YYYY (as French, Arabic and British English write it in the
 * countries served), whatever the browser's own locale; a date picker would follow the browser's.
 */
const TYPED = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/;
/** Arabic-Indic and Eastern Arabic-Indic digits, as an Arabic keyboard may type them. */
const ARABIC_DIGITS = /[\u0660-\u0669\u06f0-\u06f9]/g;
const asciiDigit = (digit: string): string => String(digit.charCodeAt(0) & 0xf);

/**
 * A parameter as typed (trimmed, Arabic-Indic digits read): `typed` matched, rewritten by `iso`; else
 * as given (the console's own links), for its reader to check.
 */
const typedParam = (query: unknown, name: string, typed: RegExp, iso: (match: RegExpExecArray) => string): string | undefined => {
  const value = oneParam(query, name)?.trim().replace(ARABIC_DIGITS, asciiDigit);
  if (value === undefined || value === '') return undefined;
  const match = typed.exec(value);
  return match ? iso(match) : value;
};
const pad2 = (digits: string | undefined): string => digits!.padStart(2, '0');

const TYPED_MONTH = /^(\d{1,2})[/.-](\d{4})$/;

/** A date parameter (`from`, `to`, `as_of`): DD/MM/YYYY as typed, or YYYY-MM-DD as the console's links give it; as YYYY-MM-DD (checked by dayStart). */
export const dateParam = (query: unknown, name: string): string | undefined => typedParam(query, name, TYPED, (m) => `${m[3]}-${pad2(m[2])}-${pad2(m[1])}`);

/** A month parameter: MM/YYYY as typed, or YYYY-MM as the console's links give it; as YYYY-MM (checked by its reader). */
export const monthParam = (query: unknown, name: string): string | undefined => typedParam(query, name, TYPED_MONTH, (m) => `${m[2]}-${pad2(m[1])}`);

/** A calendar date (YYYY-MM-DD) as the console writes it and its forms take it: DD/MM/YYYY. */
export const displayDate = (date: string): string => (DATE.test(date) ? `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}` : date);

/** The instant a local day starts in the currency's zone (`2026-11-03` in Algiers: 2026-11-02T23:00Z); 400 for a malformed or impossible date. */
export function dayStart(date: string, currency: Currency, param: string): string {
  const match = DATE.exec(date);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (!match || year < 2000 || year > 2999 || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new ServiceError('invalid_request', `${param} must be a date, DD/MM/YYYY`, param);
  }
  return new Date(localInstant(year, month, day, 0, ZONE_OF_CURRENCY[currency])).toISOString();
}

/** The instant a local day ends (the next day's start), so that a day given as `to` is included. */
export const dayEnd = (date: string, currency: Currency, param: string): string => {
  const start = dayStart(date, currency, param);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return start && new Date(localInstant(year, month, day + 1, 0, ZONE_OF_CURRENCY[currency])).toISOString();
};

/** Built once per zone: a format is far dearer to build than to use. */
const dayFormats = new Map<Currency, Intl.DateTimeFormat>();

/** The local calendar date (YYYY-MM-DD) of an instant in the currency's zone, `days` later. */
export function localDate(iso: string, currency: Currency, days = 0): string {
  let format = dayFormats.get(currency);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA-u-nu-latn', { timeZone: ZONE_OF_CURRENCY[currency], year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(currency, format);
  }
  const parts = format.formatToParts(new Date(iso));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const shifted = new Date(Date.UTC(get('year'), get('month') - 1, get('day') + days));
  return shifted.toISOString().slice(0, 10);
}

/** A query parameter given once as a string, else undefined; a repeated one is a bad request. */
export const oneParam = (query: unknown, name: string): string | undefined => {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new ServiceError('invalid_request', `${name} must be given once`, name);
  return value;
};
