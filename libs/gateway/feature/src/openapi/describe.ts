import { SetMetadata } from '@nestjs/common';
import type { JsonSchema, Schema } from '@pay/contracts';

/**
 * What the API description needs that Nest's route metadata does not say: what a handler answers
 * (a schema of `libs/contracts`) and its summary, the DTO class that validates its JSON body (the
 * same class its `validateBody` call uses) and the query parameters it reads. Paths, methods, path
 * parameters and success statuses come from Nest itself.
 */
export const BODY_DTO = 'pay:openapi:body';
export const QUERY_PARAMS = 'pay:openapi:query';
export const RETURNS = 'pay:openapi:returns';
export const IDEMPOTENT_CREATE = 'pay:openapi:idempotent-create';
export const BODY_MEDIA = 'pay:openapi:body-media';

export interface ReturnsOptions {
  /** Longer than the summary: rules, effects, what each outcome means. Default: built from the summary and the schema. */
  description?: string;
  /** Default `<resource>.<handler>` (e.g. `payments.create`, `balanceTransactions.list`; `admin.<handler>` under /admin/v1). */
  operationId?: string;
  /** The route also answers `text/csv` when asked with `Accept: text/csv`. */
  csv?: boolean;
  /** A GET that can answer `409 invalid_status` (the object's status allows no such read). */
  conflict?: boolean;
}

export interface ReturnsMetadata extends ReturnsOptions {
  schema: JsonSchema;
  summary: string;
  /** The success answer's media type when it is not JSON (a file, a stream); `schema` describes its text. */
  mediaType?: string;
}

type Answer<T> = T | Promise<T>;

/**
 * The handler answers `schema` (a resource of `libs/contracts`, `listOf(...)` for a list) on success;
 * `summary` names the operation. The compiler holds the handler's return type to the schema's.
 */
export const Returns =
  <T, O extends ReturnsOptions = ReturnsOptions>(schema: Schema<T>, summary: string, options?: O) =>
  (target: object, key: string | symbol, descriptor: { value?: (...args: never[]) => Answer<T | (O extends { csv: true } ? string : never)> }): void => {
    SetMetadata(RETURNS, { schema, summary, ...options } satisfies ReturnsMetadata)(target, key, descriptor as PropertyDescriptor);
  };

/**
 * The handler answers a document that is not JSON on success (`application/xml`, `application/x-ndjson`):
 * `schema` describes its text (a string, with what it holds in words).
 */
export const ReturnsMedia = (mediaType: string, schema: JsonSchema, summary: string, options?: Omit<ReturnsOptions, 'csv'>) =>
  SetMetadata(RETURNS, { schema, summary, mediaType, ...options } satisfies ReturnsMetadata);

export interface BodyMediaMetadata {
  mediaType: string;
  schema: JsonSchema;
}

/** The handler reads a body that is not JSON (e.g. an `application/xml` document): its media type and what it holds. */
export const MediaBody = (mediaType: string, schema: JsonSchema) => SetMetadata(BODY_MEDIA, { mediaType, schema } satisfies BodyMediaMetadata);

/** The handler validates its JSON body with this class. */
export const JsonBody = (dto: new () => object) => SetMetadata(BODY_DTO, dto);

/**
 * A query parameter: its name alone, where the name says what it is (`limit`: 1 to 100, default 10;
 * `created_gte`, `created_lt`, `from`, `to`, `as_of`, `since`: ISO times; anything else a string),
 * with a trailing `!` when required; or `{ name: values }` for a filter that takes one of a set of
 * values (a status, a type); or `{ name: schema }` for anything else.
 */
export type QueryParam = string | Readonly<Record<string, readonly string[] | JsonSchema>>;

/** The query parameters the handler reads. */
export const QueryParams = (...params: QueryParam[]) => SetMetadata(QUERY_PARAMS, params);

/** The query parameters of every list: `limit` and `starting_after`. */
export const LIST_QUERY = ['limit', 'starting_after'] as const;

/** A list's creation-time window: `created_gte` (inclusive) and `created_lt` (exclusive). */
export const CREATED_RANGE = ['created_gte', 'created_lt'] as const;
