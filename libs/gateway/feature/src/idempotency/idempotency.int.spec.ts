import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { createPool, endPool, runMigrations, startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';
import { setUp } from '@pay/testing';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { IdempotencyStore } from './idempotency';

/**
 * With a database per service on servers of their own, the gateway's idempotency key and the object it
 * creates are in two PostgreSQL servers: nothing written to the object's makes the key's row durable.
 * A claim acknowledged before the object is created must survive a crash of the gateway's server, or a
 * retry of the same create after it allocates a second object id: a second payment.
 */
describe('idempotency keys across a crash of their PostgreSQL', () => {
  let dir: string;
  let database: RunningDatabase;
  const pools: Pool[] = [];
  const open = (url: string, asynchronousCommit: boolean) => {
    const pool = createPool(url, { max: 2, statementTimeoutMs: 10_000, asynchronousCommit });
    pool.on('error', () => undefined); // the crash below ends its connections
    pools.push(pool);
    return pool;
  };

  setUp(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pay-idempotency-crash-'));
    database = await startEmbeddedPostgres(dir);
    await runMigrations(database.url, [GATEWAY_MIGRATIONS]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => endPool(pool).catch(() => undefined)));
    await database?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a claimed key is still there after an immediate shutdown taken while its object was being created', async () => {
    const setup = open(database.url, false);
    // An asynchronous commit then stays in PostgreSQL's memory for up to 10 s: the crash below loses it.
    await setup.query(`ALTER SYSTEM SET wal_writer_delay = '10s'`);
    await setup.query('SELECT pg_reload_conf()');
    const store = new IdempotencyStore(open(database.url, false), open(database.url, true));
    const call = { scope: 'int_crash', key: 'key-1', endpoint: 'POST /v1/payments', objectKind: 'payment' as const };
    let created: string | undefined;

    const run = store.run(call, { body: { amount: 1 }, reply: {} as FastifyReply }, async (objectId) => {
      created = objectId;
      await crashPostgres(setup);
      return { id: objectId };
    });
    await expect(run).rejects.toThrow();
    expect(created).toMatch(/^pay_/);

    await database.stop(); // its server is gone: releases the data directory
    database = await startEmbeddedPostgres(dir); // recovers from the crash
    const after = open(database.url, false);
    const { rows } = await after.query<{ object_id: string }>('SELECT object_id FROM gw_idempotency_keys WHERE scope = $1 AND key = $2', [call.scope, call.key]);
    expect(rows).toEqual([{ object_id: created }]);
  }, 120_000);
});

/** SIGQUIT to the postmaster (immediate shutdown: no checkpoint, no WAL flush); resolves once it is gone. */
async function crashPostgres(pool: Pool): Promise<void> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const status = await readFile(`/proc/${rows[0]!.pid}/status`, 'utf8');
  const postmaster = Number(/^PPid:\s+(\d+)/m.exec(status)![1]);
  process.kill(postmaster, 'SIGQUIT');
  for (;;) {
    try {
      process.kill(postmaster, 0);
    } catch {
      return;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}
