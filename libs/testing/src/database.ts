import { ensureDatabase } from '@pay/platform';
import type { Pool } from 'pg';
import { randomBytes } from 'node:crypto';

/** A fresh, empty database on the run's PostgreSQL, for one test file. */
export async function createTestDatabase(label = 'test'): Promise<string> {
  const base = process.env['TEST_DATABASE_URL'];
  if (!base) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (its global setup starts PostgreSQL)');
  const url = new URL(base);
  url.pathname = `/${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(url.toString());
  return url.toString();
}

/**
 * Sequential scans of `table` so far, the pool's own session included (its pending statistics are
 * flushed first). With a one-connection pool, a scan between two calls is that session's.
 */
export async function sequentialScans(pool: Pool, table: string): Promise<number> {
  await pool.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await pool.query<{ n: number }>('SELECT seq_scan::int AS n FROM pg_stat_user_tables WHERE relname = $1', [table]);
  return rows[0]!.n;
}
