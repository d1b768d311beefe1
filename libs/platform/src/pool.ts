import { Logger } from '@nestjs/common';
import { Pool, types, type ClientBase, type PoolClient } from 'pg';
import { DB_CONNECTION_TIMEOUT_MS, DB_IDLE_TIMEOUT_MS, DB_POOL_END_WAIT_MS, DB_QUERY_TIMEOUT_GRACE_MS } from '@pay/kernel';

// bigint columns (int8) arrive as JS numbers: every amount we store is at most 1e11 * 2 and
// is checked as a safe integer before it is written.
types.setTypeParser(types.builtins.INT8, (value) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`int8 ${value} is beyond 2^53`);
  return parsed;
});

export interface PoolOptions {
  max: number;
  statementTimeoutMs: number;
  /**
   * Commits return before their WAL is flushed. Only for writes whose loss in a crash is harmless or
   * repaired: WAL is flushed in order, so such a commit is durable as soon as any later synchronous
   * commit is.
   */
  asynchronousCommit?: boolean;
  /** How long a query waits for a connection, a new one or one freed by the pool (DB_CONNECTION_TIMEOUT_MS). */
  connectionTimeoutMs?: number;
}

const logger = new Logger('postgres');

export function createPool(url: string, { max, statementTimeoutMs, asynchronousCommit = false, connectionTimeoutMs = DB_CONNECTION_TIMEOUT_MS }: PoolOptions): Pool {
  const pool = new Pool({
    connectionString: url,
    max,
    ...(asynchronousCommit ? { options: '-c synchronous_commit=off' } : {}),
    idleTimeoutMillis: DB_IDLE_TIMEOUT_MS,
    connectionTimeoutMillis: connectionTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // The server's statement_timeout cannot fire when the server itself is frozen (stopped, a network
    // partition): the client gives up a little after it, and the request is answered 503.
    query_timeout: statementTimeoutMs + DB_QUERY_TIMEOUT_GRACE_MS,
    application_name: 'payments-platform',
  });
  // An idle connection dropped by the server (restart, failover) is discarded by the pool; without a
  // listener the 'error' event would crash the process.
  pool.on('error', (error) => logger.warn(`idle connection lost: ${error.message}`));
  const open = new Set<ClientBase>();
  pool.on('connect', (client) => {
    open.add(client);
    client.once('end', () => open.delete(client));
  });
  openConnections.set(pool, open);
  // A connection checked out (between the statements of a transaction, a held advisory lock) has no pool
  // listener: one of its own, so that its loss fails the work in hand, never the process.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn(`connection lost while in use: ${error.message}`)));
  return pool;
}

const openConnections = new WeakMap<Pool, Set<ClientBase>>();

/**
 * Ends the pool and waits until its connections are closed: pg's `end()` resolves once it has asked
 * them to close, and a PostgreSQL stopped right after would cut them (an `idle connection lost` line).
 * Bounded by DB_POOL_END_WAIT_MS, a connection never released included.
 */
export async function endPool(pool: Pool): Promise<void> {
  const open = [...(openConnections.get(pool) ?? [])];
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, DB_POOL_END_WAIT_MS)));
  // pg-pool's end() waits for every checked-out connection's release: one never released (work stuck
  // in a transaction, a leak) would hang a shutdown for ever.
  await Promise.race([pool.end(), bound]);
  const closed = Promise.all(open.map((client) => new Promise<void>((resolve) => (openConnections.get(pool)?.has(client) ? client.once('end', () => resolve()) : resolve()))));
  // A connection still being opened when the pool ended is closed once it is open: wait for it too
  // (a test file torn down meanwhile would see it touch a torn-down module).
  let ended = false;
  const connecting = (async () => {
    while (pool.totalCount > 0 && !ended) await new Promise((resolve) => setTimeout(resolve, 10));
  })();
  await Promise.race([Promise.all([closed, connecting]), bound]);
  ended = true;
  clearTimeout(timer);
}

/**
 * Runs `work` in one PostgreSQL transaction (READ COMMITTED) on a connection of its own; any error
 * rolls it back. A connection that cannot even roll back is discarded, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
}
