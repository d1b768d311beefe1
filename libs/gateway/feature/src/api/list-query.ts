import { ServiceError } from '@pay/contracts';

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
const ID = /^[a-z]{2,5}_[0-9A-Za-z]{1,64}$/;

/** `limit` (1 to 100, default 10) and `starting_after` (an id), plus the filters a list allows (contract section 5). */
export function parseListQuery<F extends string>(
  query: unknown,
  filters: readonly F[] = [],
): { limit: number; startingAfter?: string; filters: Partial<Record<F, string>> } {
  const params = (query ?? {}) as Record<string, unknown>;
  const allowed = new Set<string>(['limit', 'starting_after', ...filters]);
  for (const [name, value] of Object.entries(params)) {
    if (!allowed.has(name)) throw new ServiceError('invalid_request', `unknown parameter: ${name}`, name);
    if (typeof value !== 'string') throw new ServiceError('invalid_request', `${name} must be given once`, name);
  }
  const rawLimit = params['limit'] as string | undefined;
  const limit = rawLimit === undefined ? LIST_LIMIT_DEFAULT : Number(rawLimit);
  if (!/^\d{1,3}$/.test(rawLimit ?? '10') || limit < 1 || limit > LIST_LIMIT_MAX) {
    throw new ServiceError('invalid_request', `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`, 'limit');
  }
  const startingAfter = params['starting_after'] as string | undefined;
  if (startingAfter !== undefined && !ID.test(startingAfter)) throw new ServiceError('invalid_request', 'starting_after must be an id of this list', 'starting_after');
  const chosen: Partial<Record<F, string>> = {};
  for (const filter of filters) {
    const value = params[filter] as string | undefined;
    if (value !== undefined) {
      if (value === '' || value.length > 255) throw new ServiceError('invalid_request', `${filter} must be 1 to 255 characters`, filter);
      chosen[filter] = value;
    }
  }
  return { limit, ...(startingAfter === undefined ? {} : { startingAfter }), filters: chosen };
}
