import type { Pool } from 'pg';

/** One row a reference matched: its integrator, the reference column that held it, its folded state. */
export interface ReferenceRow<State> {
  integratorId: string;
  field: string;
  state: State;
}

/**
 * The newest rows of a view whose reference columns hold `reference` exactly, across integrators (the
 * back office's search): one indexed lookup per column (each column has an index of its own, the
 * reference first), at most `limit` rows in all. `table` and `fields` are the caller's constants.
 */
export async function searchReferences<State>(pool: Pool, table: string, fields: readonly string[], reference: string, limit: number): Promise<ReferenceRow<State>[]> {
  const parts = fields.map((field) => `(SELECT integrator_id, '${field}' AS field, state, seq FROM ${table} WHERE ${field} = $1 ORDER BY seq DESC LIMIT $2)`);
  const { rows } = await pool.query<{ integrator_id: string; field: string; state: State }>(
    `SELECT integrator_id, field, state FROM (${parts.join(' UNION ALL ')}) matches ORDER BY seq DESC LIMIT $2`,
    [reference, limit],
  );
  return rows.map((row) => ({ integratorId: row.integrator_id, field: row.field, state: row.state }));
}
