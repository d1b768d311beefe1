import type { Pool } from 'pg';
import { ServiceError } from '@pay/contracts';

/**
 * One page of an integrator's objects from a projection table, newest first: by `created_at` (the time
 * the request created the object), then by the table's `seq` among equal times. `seq` alone is the order
 * the projection inserted the rows, the order their streams committed, which concurrent requests do not
 * keep. Equality filters on indexed columns and a half-open range on `created_at`; each list has an index
 * per filter ending in (created_at DESC, seq DESC). Every list of the API reads its table through this,
 * so that pagination behaves the same everywhere: `starting_after` must be an object of the list as
 * filtered, except for the filters on what changes over an object's life (`changing`, its status), so
 * that an object whose status changed between two pages still works as a cursor.
 */
export interface ListPageQuery {
  /** Projection table and its id column: trusted constants of the calling app, never user input. */
  table: string;
  idColumn: string;
  /** The column that holds each object as the list answers it (default `state`, the folded aggregate). */
  valueColumn?: string;
  integratorId: string;
  limit: number;
  startingAfter?: string;
  /** Column → value; an undefined value is no filter. Columns are the caller's constants. */
  equals: Readonly<Record<string, string | undefined>>;
  /** Equality filters on columns an object's life changes (status): the cursor need not match them. */
  changing?: Readonly<Record<string, string | undefined>>;
  createdGte?: string;
  createdLt?: string;
}

/** The page's objects as their projected state (the folded aggregate), and whether more follow. */
export async function listPage<State>(pool: Pool, query: ListPageQuery): Promise<{ states: State[]; hasMore: boolean }> {
  const values: unknown[] = [query.integratorId];
  const where = ['integrator_id = $1'];
  const add = (condition: (n: number) => string, value: unknown) => {
    values.push(value);
    where.push(condition(values.length));
  };
  for (const [column, value] of Object.entries(query.equals)) {
    if (value !== undefined) add((n) => `${column} = $${n}`, value);
  }
  if (query.createdGte !== undefined) add((n) => `created_at >= $${n}`, query.createdGte);
  if (query.createdLt !== undefined) add((n) => `created_at < $${n}`, query.createdLt);
  if (query.startingAfter !== undefined) {
    // The cursor is looked up under the list's own filters (bar the changing ones): an id of another list is refused.
    const { rows } = await pool.query<{ seq: string }>(`SELECT seq FROM ${query.table} WHERE ${where.join(' AND ')} AND ${query.idColumn} = $${values.length + 1}`, [
      ...values,
      query.startingAfter,
    ]);
    if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
    // The cursor row's created_at is read in SQL: through a JS Date it would lose its microseconds.
    add((n) => `(created_at, seq) < ((SELECT created_at FROM ${query.table} WHERE seq = $${n}), $${n})`, rows[0].seq);
  }
  for (const [column, value] of Object.entries(query.changing ?? {})) {
    if (value !== undefined) add((n) => `${column} = $${n}`, value);
  }
  values.push(query.limit + 1);
  const { rows } = await pool.query<{ state: State }>(
    `SELECT ${query.valueColumn ?? 'state'} AS state FROM ${query.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, seq DESC LIMIT $${values.length}`,
    values,
  );
  return { states: rows.slice(0, query.limit).map((row) => row.state), hasMore: rows.length > query.limit };
}

/** Every object of a projection table in its order (all integrators), a page at a time: batch jobs. */
export async function statesAfter<State>(pool: Pool, table: string, afterSeq: string | null, limit: number): Promise<{ states: State[]; nextAfterSeq: string | null }> {
  const { rows } = await pool.query<{ state: State; seq: number }>(`SELECT state, seq FROM ${table} WHERE $1::bigint IS NULL OR seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  // A bigint arrives as a number (pool.ts); the cursor crosses the bus as the string its contract says.
  return { states: rows.map((r) => r.state), nextAfterSeq: rows.length === limit ? String(rows[rows.length - 1]!.seq) : null };
}
