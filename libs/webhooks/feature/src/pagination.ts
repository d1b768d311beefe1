import { ServiceError, type ListResource } from '@pay/contracts';

/** Newest first by `seq`; `starting_after` must be an id of the same list (contract section 5). */
export interface PageQuery {
  limit: number;
  /** The seq of the starting_after object, already resolved. */
  beforeSeq: number | null;
}

export const toPage = <T>(rows: T[], limit: number): ListResource<T> => ({
  object: 'list',
  data: rows.slice(0, limit),
  has_more: rows.length > limit,
});

export const notInList = (id: string): ServiceError => new ServiceError('invalid_request', `starting_after '${id}' is not an id of this list`, 'starting_after');
