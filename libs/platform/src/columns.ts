/**
 * The values of a set-based statement over `unnest($1::type[], $2::type[], ...)`: `row` gives each
 * item's values in parameter order, and the result is one array per parameter (a column). A column of
 * `jsonb(...)` values is sent as one JSON array, for `jsonbElements(n)` in the statement.
 */
export function columns<Item>(items: readonly Item[], row: (item: Item) => unknown[]): unknown[] {
  const result: unknown[][] = [];
  items.forEach((item, index) => {
    row(item).forEach((value, column) => {
      (result[column] ??= new Array(items.length))[index] = value;
    });
  });
  return result.map((column) => (column[0] instanceof Jsonb ? JSON.stringify(column.map((cell) => (cell as Jsonb).value)) : column));
}

/** A value of a jsonb column that `columns` sends as one JSON array (see jsonbElements). */
export class Jsonb {
  constructor(readonly value: unknown) {}
}
export const jsonb = (value: unknown): Jsonb => new Jsonb(value);

/**
 * Where `$n::jsonb[]` would be in the statement's text: the elements of `$n`, one JSON array (a
 * `jsonb(...)` column of `columns`, or `JSON.stringify` of the values). pg sends a JS array as an array
 * literal, escaping each element's quotes and backslashes: for JSON texts, two regular-expression passes
 * and two copies each (at full speed, a tenth of what the service allocated). One stringify of the
 * whole array does none of that; PostgreSQL parses the same JSON either way.
 */
export const jsonbElements = (parameter: number): string =>
  `ARRAY(SELECT element FROM jsonb_array_elements($${parameter}::jsonb) WITH ORDINALITY AS elements (element, n) ORDER BY n)`;
