import { SetMetadata } from '@nestjs/common';

/**
 * What the API description needs that Nest's route metadata does not say: the DTO class that
 * validates a handler's JSON body (the same class its `validateBody` call uses) and the query
 * parameters it reads. Paths, methods, path parameters and success statuses come from Nest itself.
 */
export const BODY_DTO = 'pay:openapi:body';
export const QUERY_PARAMS = 'pay:openapi:query';

/** The handler validates its JSON body with this class. */
export const JsonBody = (dto: new () => object) => SetMetadata(BODY_DTO, dto);

/** The query parameters the handler reads (each `required` when marked with a trailing `!`). */
export const QueryParams = (...names: string[]) => SetMetadata(QUERY_PARAMS, names);

/** The query parameters of every list: `limit` and `starting_after`. */
export const LIST_QUERY = ['limit', 'starting_after'] as const;
