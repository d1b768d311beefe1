/**
 * JSON Schemas that carry their TypeScript type: each resource of the API is declared once, as a
 * schema, and its type is `Static<typeof schema>`. The OpenAPI document publishes the schemas, the
 * e2e suites validate every answer against them, and the compiler holds the handlers (and the SDK's
 * types) to the same declaration. The subset of JSON Schema 2020-12 that OpenAPI 3.1 uses; objects
 * are closed (`additionalProperties: false`): a field the schema does not declare is a fault.
 */

declare const STATIC: unique symbol;
declare const OPTIONAL: unique symbol;

export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

/** A JSON Schema whose instances have the type T (a phantom: nothing at run time). */
export type Schema<T> = JsonSchema & { readonly [STATIC]?: () => T };

/** A property that may be absent (`required` leaves it out). */
export type Optional<T> = Schema<T> & { readonly [OPTIONAL]: true };

export type Static<S> = S extends { readonly [STATIC]?: () => infer T } ? T : never;

type Properties = Record<string, Schema<unknown>>;
type OptionalKeys<P extends Properties> = { [K in keyof P]: P[K] extends { readonly [OPTIONAL]: true } ? K : never }[keyof P];
type Flatten<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<P extends Properties> = Flatten<{ [K in Exclude<keyof P, OptionalKeys<P>>]: Static<P[K]> } & { [K in OptionalKeys<P>]?: Static<P[K]> }>;

interface Annotations {
  description?: string;
}

interface StringOptions extends Annotations {
  format?: 'date-time' | 'uri';
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  examples?: string[];
}

interface IntegerOptions extends Annotations {
  minimum?: number;
  maximum?: number;
}

const OPTIONAL_MARK = 'x-optional';

const schema = <T>(value: object): Schema<T> => value as Schema<T>;

/**
 * A schema written out, for what the builders below do not cover (`oneOf`): T must be what every
 * instance of it is (the compiler cannot check this one).
 */
export const schemaOf = <T>(value: JsonSchema): Schema<T> => schema(value);

export const string = (options: StringOptions = {}): Schema<string> => schema({ type: 'string', ...options });

/** An ISO 8601 UTC time with milliseconds, on the service clock. */
export const time = (description?: string): Schema<string> => string({ format: 'date-time', ...(description ? { description } : {}) });

export const integer = (options: IntegerOptions = {}): Schema<number> => schema({ type: 'integer', ...options });

export const boolean = (options: Annotations = {}): Schema<boolean> => schema({ type: 'boolean', ...options });

/** Exactly this value: an object's `object` field, `deleted: true`. */
export const literal = <const V extends string | boolean>(value: V, options: Annotations = {}): Schema<V> =>
  schema({ type: typeof value === 'boolean' ? 'boolean' : 'string', const: value, ...options });

export const oneOfValues = <const V extends readonly string[]>(values: V, options: Annotations = {}): Schema<V[number]> => schema({ type: 'string', enum: [...values], ...options });

export const array = <T>(items: Schema<T>, options: Annotations & { maxItems?: number } = {}): Schema<T[]> => schema({ type: 'array', items, ...options });

/** The value, or JSON null. */
export const nullable = <T>(inner: Schema<T>): Schema<T | null> => {
  const { type, enum: values, const: constant, ...rest } = inner as Record<string, unknown>;
  if (typeof type === 'string' && type !== 'object' && type !== 'array' && constant === undefined) {
    return schema({ type: [type, 'null'], ...(values ? { enum: [...(values as unknown[]), null] } : {}), ...rest });
  }
  return schema({ anyOf: [inner, { type: 'null' }] });
};

/** A property that may be absent from the object (not the same as `nullable`). */
export const optional = <T>(inner: Schema<T>): Optional<T> => ({ ...inner, [OPTIONAL_MARK]: true }) as unknown as Optional<T>;

/** A closed object: every property required unless `optional`, no other property allowed. */
export const object = <P extends Properties>(properties: P, options: Annotations & { title?: string } = {}): Schema<ObjectOf<P>> => {
  const required = Object.keys(properties).filter((name) => !(OPTIONAL_MARK in (properties[name] as object)));
  const cleaned = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, stripMark(value)]));
  return schema({ type: 'object', ...options, required, properties: cleaned, additionalProperties: false });
};

const stripMark = (value: JsonSchema): JsonSchema => {
  if (!(OPTIONAL_MARK in value)) return value;
  const { [OPTIONAL_MARK]: _mark, ...rest } = value;
  return rest;
};

/** Any JSON object (a free-form map); its fields are described in words. */
export const anyObject = (options: Annotations = {}): Schema<Record<string, unknown>> => schema({ type: 'object', ...options });

/** The same object with more properties (e.g. an admin view of a resource). */
export const extend = <B extends object, Q extends Properties>(base: Schema<B>, more: Q, options: Annotations & { title?: string } = {}): Schema<Flatten<B & ObjectOf<Q>>> => {
  const { properties, required, title: _title, ...rest } = base as unknown as { properties: Properties; required: string[]; title?: string };
  const added = object(more) as unknown as { properties: Q; required: string[] };
  return schema({ ...rest, ...options, type: 'object', required: [...required, ...added.required], properties: { ...properties, ...added.properties }, additionalProperties: false });
};

/**
 * A schema published under a name (`components/schemas/<name>` in the OpenAPI document, where other
 * schemas refer to it). Every resource, list envelope, event and the error are named.
 */
export const named = <T>(name: string, inner: Schema<T>): Schema<T> => schema({ title: name, ...inner });

/** The name a schema is published under, if any. */
export const nameOf = (value: JsonSchema): string | undefined => (typeof value['title'] === 'string' ? value['title'] : undefined);

/** The list envelope of section 5, newest first. */
export const listOf = <T>(item: Schema<T>, name?: string) =>
  named(
    name ?? `${nameOf(item) ?? 'Object'}List`,
    object(
      {
        object: literal('list'),
        data: array(item),
        has_more: boolean({ description: 'Whether another page follows: ask for it with `starting_after` set to the last id of `data`.' }),
      },
      { description: `A page of ${nameOf(item) ?? 'object'} objects.` },
    ),
  );
