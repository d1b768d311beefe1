import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Pool } from 'pg';
import { DB_POOL_END_WAIT_MS } from '@pay/kernel';
import { createPool, endPool } from './pool';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONNECT_DELAY_MS = 600;

/**
 * A pool ended while one of its connections is still being opened: `endPool` returns only once that
 * connection is open and closed again, so nothing of the pool runs after it (a connection that finished
 * opening after its test file was torn down would touch a torn-down module: `TypeError: Cannot read
 * properties of undefined (reading 'Socket')` in pg/lib/stream.js). pg-pool's `end()` counts such a
 * connection among its clients and resolves once it is closed; an `endPool` that did not wait for it
 * fails here. PostgreSQL is reached through a TCP proxy that holds each new connection for a while
 * before passing it on.
 */
describe('endPool with a connection still being opened', () => {
  let server: Server;
  let port = 0;
  const clients = new Set<Socket>();

  beforeAll(async () => {
    const target = new URL(process.env['TEST_DATABASE_URL']!);
    server = createServer((client) => {
      clients.add(client);
      client.on('close', () => clients.delete(client));
      client.on('error', () => client.destroy());
      client.pause();
      setTimeout(() => {
        if (client.destroyed) return;
        const upstream = connect(Number(target.port || 5432), target.hostname);
        upstream.on('error', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      }, CONNECT_DELAY_MS);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('waits for it: once endPool returns, its socket is closed and the pool does nothing more', async () => {
    expect(CONNECT_DELAY_MS).toBeLessThan(DB_POOL_END_WAIT_MS); // within endPool's bound
    const url = new URL(process.env['TEST_DATABASE_URL']!);
    url.host = `127.0.0.1:${port}`;
    const pool: Pool = createPool(url.toString(), { max: 1, statementTimeoutMs: 10_000 });
    const after: string[] = []; // what the pool did after endPool returned
    let returned = false;
    const errors: unknown[] = [];
    pool.on('error', (error) => errors.push(error));
    const connections = { opened: 0, closed: 0 };
    pool.on('connect', (client) => {
      connections.opened++;
      client.once('end', () => connections.closed++); // its socket closed
      if (returned) after.push('connect');
    });
    pool.on('remove', () => returned && after.push('remove'));
    const onUncaught = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    try {
      const query = pool.query('SELECT 1').catch((error: unknown) => error);
      while (clients.size === 0) await sleep(5); // its connection accepted, not yet passed on
      await endPool(pool);
      returned = true;
      expect(pool.totalCount).toBe(0);
      expect(connections).toEqual({ opened: 1, closed: 1 });
      // The proxy sees the close at once (loopback), never after the connect delay.
      await sleep(100);
      expect(clients.size).toBe(0);
      await query;
      await sleep(CONNECT_DELAY_MS + 500); // past when the connection would have finished opening
      expect(after).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUncaught);
    }
  });
});

/**
 * A connection checked out and never released (work stuck in a transaction, a leak): pg-pool's `end()`
 * waits for its release for ever, so a shutdown would hang. `endPool` gives up after its bound.
 */
describe('endPool with a connection never released', () => {
  it('returns within DB_POOL_END_WAIT_MS (and a second after); the held connection still answers', async () => {
    const pool: Pool = createPool(process.env['TEST_DATABASE_URL']!, { max: 2, statementTimeoutMs: 10_000 });
    const held = await pool.connect();
    const started = Date.now();
    const ending = endPool(pool).then(() => 'ended');
    try {
      expect(await Promise.race([ending, sleep(DB_POOL_END_WAIT_MS + 5_000).then(() => 'hung')])).toBe('ended');
      expect(Date.now() - started).toBeLessThan(DB_POOL_END_WAIT_MS + 1_000);
      expect((await held.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      held.release(true); // closes it: the pool's end completes
      await ending;
    }
  });
});
