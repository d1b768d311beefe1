import { ServiceError } from '@pay/contracts';
import { ID_LENGTH_MAX, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, STRING_LENGTH_MAX } from '@pay/kernel';

const ID = new RegExp(`^[a-z]{2,5}_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);

export interface ListQuery<F extends string> {
  limit: number;
  startingAfter?: string;
  filters: Partial<Record<F, string>>;
  /** ISO times, when the list takes `created_gte` / `created_lt`. */
  createdGte?: string;
  createdLt?: string;
}

export interface ListQueryOptions<F extends string> {
  /** For the filters that take one of a set of values (statuses, event types), the set. */
  oneOf?: Partial<Record<F, readonly string[]>>;
  /** Whether the list takes `created_gte` and `created_lt`. */
  createdRange?: boolean;
  /** What an id of this list looks like (default: a prefixed id such as `pay_…`). */
  idPattern?: RegExp;
}

/**
 * `limit` (1 to 100, default 10) and `starting_after` (an id), plus the filters a list allows: an
 * unknown parameter, a value outside its set or a time that is not ISO 8601 is invalid_request.
 */
export function parseListQuery<F extends string>(query: unknown, filters: readonly F[] = [], options: ListQueryOptions<F> = {}): ListQuery<F> {
  const params = (query ?? {}) as Record<string, unknown>;
  const range = options.createdRange ? (['created_gte', 'created_lt'] as const) : [];
  const allowed = new Set<string>(['limit', 'starting_after', ...filters, ...range]);
  for (const [name, value] of Object.entries(params)) {
    if (!allowed.has(name)) throw new ServiceError('invalid_request', `unknown parameter: ${name}`, name);
    if (typeof value !== 'string') throw new ServiceError('invalid_request', `${name} must be given once`, name);
  }
  const rawLimit = params['limit'] as string | undefined;
  const limit = rawLimit === undefined ? LIST_LIMIT_DEFAULT : Number(rawLimit);
  if (!/^\d{1,3}$/.test(rawLimit ?? String(LIST_LIMIT_DEFAULT)) || limit < 1 || limit > LIST_LIMIT_MAX) {
    throw new ServiceError('invalid_request', `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`, 'limit');
  }
  const startingAfter = params['starting_after'] as string | undefined;
  if (startingAfter !== undefined && !(options.idPattern ?? ID).test(startingAfter)) throw new ServiceError('invalid_request', 'starting_after must be an id of this list', 'starting_after');
  const chosen: Partial<Record<F, string>> = {};
  for (const filter of filters) {
    const value = params[filter] as string | undefined;
    if (value !== undefined) {
      if (value === '' || value.length > STRING_LENGTH_MAX) throw new ServiceError('invalid_request', `${filter} must be 1 to ${STRING_LENGTH_MAX} characters`, filter);
      const allowedValues = options.oneOf?.[filter];
      if (allowedValues !== undefined && !allowedValues.includes(value)) {
        throw new ServiceError('invalid_request', `${filter} must be one of ${allowedValues.join(', ')}`, filter);
      }
      chosen[filter] = value;
    }
  }
  const createdGte = isoTime(params, 'created_gte', 'up');
  const createdLt = isoTime(params, 'created_lt', 'up');
  return {
    limit,
    ...(startingAfter === undefined ? {} : { startingAfter }),
    filters: chosen,
    ...(createdGte === undefined ? {} : { createdGte }),
    ...(createdLt === undefined ? {} : { createdLt }),
  };
}

const ISO_8601_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** The first and last instants an API time may name: years 0001 to 9999 (PostgreSQL has no year 0000). */
const INSTANT_MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const INSTANT_MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** True when year, month and day name a day of the proleptic Gregorian calendar, years 0–99 included. */
const isCalendarDay = (year: number, month: number, day: number): boolean => {
  const date = new Date(0);
  // setUTCFullYear takes years 0–99 as they are, where Date.UTC maps them to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/**
 * How a time's digits below the millisecond become whole milliseconds. Stored times are whole
 * milliseconds, so a stored time is at or after a bound, or before it, exactly when it is so of the
 * bound rounded `up` (`created_gte`, `created_lt`, `from`, `since`), and at or before a bound exactly
 * when it is so of the bound rounded `down` (`to`, `as_of`). `down` is what `Date.parse` does.
 */
export type SubMillisecond = 'up' | 'down';

/**
 * The instant of an ISO 8601 time with a zone, in whole milliseconds (digits below the millisecond
 * rounded as `rounding` says), or undefined: malformed, a calendar date that does not exist, or an
 * instant outside years 0001 to 9999 UTC.
 */
export const parseIsoInstant = (value: string, rounding: SubMillisecond = 'down'): number | undefined => {
  const match = ISO_8601_WITH_ZONE.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zoneHours = '0', zoneMinutes = '0'] = match.map((part) => part ?? undefined);
  if (!isCalendarDay(Number(year), Number(month), Number(day))) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(zoneHours) > 23 || Number(zoneMinutes) > 59) return undefined;
  const truncated = Date.parse(value);
  const instant = rounding === 'up' && /[1-9]/.test(fraction.slice(3)) ? truncated + 1 : truncated;
  return Number.isNaN(instant) || instant < INSTANT_MIN_MS || instant > INSTANT_MAX_MS ? undefined : instant;
};

/**
 * An ISO 8601 time with a date, a time and a zone (`2026-11-22T10:00:00.000Z`) that exists on the
 * calendar, in years 0001 to 9999 UTC, normalised to UTC in whole milliseconds, rounded as the bound
 * it is needs (`SubMillisecond`).
 */
export function isoTime(params: Record<string, unknown>, name: string, rounding: SubMillisecond): string | undefined {
  const value = params[name] as string | undefined;
  if (value === undefined) return undefined;
  const instant = parseIsoInstant(value, rounding);
  if (instant === undefined) throw new ServiceError('invalid_request', `${name} must be an ISO 8601 time that exists, in years 0001 to 9999 UTC, e.g. 2026-11-22T10:00:00.000Z`, name);
  return new Date(instant).toISOString();
}
