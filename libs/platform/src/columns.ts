/**
 * The values of a set-based statement over `unnest($1::type[], $2::type[], ...)`: `row` gives each
 * item's values in parameter order, and the result is one array per parameter (a column).
 */
export function columns<Item>(items: readonly Item[], row: (item: Item) => unknown[]): unknown[][] {
  const result: unknown[][] = [];
  items.forEach((item, index) => {
    row(item).forEach((value, column) => {
      (result[column] ??= new Array(items.length))[index] = value;
    });
  });
  return result;
}
