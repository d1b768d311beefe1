/**
 * The values of a set-based statement over `unnest($1::type[], $2::type[], ...)`: `row` gives each
 * item's values in parameter order, and the result is one array per parameter (a column). A column of
 * `jsonElement(...)` values is sent as one JSON array instead (see jsonbElements).
 */
export function columns<Item>(items: readonly Item[], row: (item: Item) => unknown[]): unknown[] {
  const result: unknown[][] = [];
  items.forEach((item, index) => {
    row(item).forEach((value, column) => {
      (result[column] ??= new Array(items.length))[index] = value;
    });
  });
  return result.map((column) => (column[0] instanceof JsonElement ? JSON.stringify(column.map((cell) => (cell as JsonElement).value)) : column));
}

/** A value that `columns` sends in one JSON array with the rest of its column. */
export class JsonElement {
  constructor(readonly value: unknown) {}
}
export const jsonElement = (value: unknown): JsonElement => new JsonElement(value);

/**
 * Where `$n::jsonb[]` would be in the statement's text: the elements of `$n`, one JSON array (a column
 * of `jsonElement(...)` values). pg sends a JS array as an array literal, escaping each element's quotes
 * and backslashes: for JSON texts, two regular-expression passes and two copies each (at full speed, a
 * seventh of the bytes a create allocated). One stringify of the whole column does none of that;
 * PostgreSQL parses the same JSON either way.
 */
export const jsonbElements = (parameter: number): string => elementsOf('jsonb_array_elements', parameter);

/** The same for `$n::json[]`: each element's text kept as sent (its keys in their order, as jsonb does not). */
export const jsonElements = (parameter: number): string => elementsOf('json_array_elements', parameter, 'json');

/** The same for `$n::text[]`, from a column of `jsonElement(string)` values (long texts: a JSON document each, say). */
export const textElements = (parameter: number): string => elementsOf('jsonb_array_elements_text', parameter);

/** The elements of the JSON array `$n`, as a PostgreSQL array in the JSON array's order. */
const elementsOf = (unpack: 'jsonb_array_elements' | 'jsonb_array_elements_text' | 'json_array_elements', parameter: number, type: 'json' | 'jsonb' = 'jsonb'): string =>
  `ARRAY(SELECT element FROM ${unpack}($${parameter}::${type}) WITH ORDINALITY AS elements (element, n) ORDER BY n)`;
