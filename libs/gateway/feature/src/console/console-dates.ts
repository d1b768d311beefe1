import { ServiceError } from '@pay/contracts';
import { ZONE_OF_CURRENCY } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';
import { localInstant } from './charts';

/** The console's forms give calendar dates (`<input type="date">`): a day of the currency's country. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant a local day starts in the currency's zone (`2026-11-03` in Algiers: 2026-11-02T23:00Z); 400 for a malformed or impossible date. */
export function dayStart(date: string, currency: Currency, param: string): string {
  const match = DATE.exec(date);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (!match || year < 2000 || year > 2999 || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new ServiceError('invalid_request', `${param} must be a date, YYYY-MM-DD`, param);
  }
  return new Date(localInstant(year, month, day, 0, ZONE_OF_CURRENCY[currency])).toISOString();
}

/** The instant a local day ends (the next day's start), so that a day given as `to` is included. */
export const dayEnd = (date: string, currency: Currency, param: string): string => {
  const start = dayStart(date, currency, param);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return start && new Date(localInstant(year, month, day + 1, 0, ZONE_OF_CURRENCY[currency])).toISOString();
};

/** The local calendar date (YYYY-MM-DD) of an instant in the currency's zone, `days` later. */
export function localDate(iso: string, currency: Currency, days = 0): string {
  const parts = new Intl.DateTimeFormat('en-CA-u-nu-latn', { timeZone: ZONE_OF_CURRENCY[currency], year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(iso));
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
