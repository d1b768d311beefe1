import { createPool } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import type { Pool } from 'pg';
import { SingleRunner } from './single-runner';

/** Work that needs one runner runs in one instance at a time; another takes over when the holder stops. */
describe('single runner (advisory lock)', () => {
  let pools: Pool[];

  beforeAll(async () => {
    const url = await createTestDatabase('single_runner');
    // Two instances of one app: two pools on the app's database.
    pools = [createPool(url, { max: 3, statementTimeoutMs: 10_000 }), createPool(url, { max: 3, statementTimeoutMs: 10_000 })];
  });
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  const runner = (pool: Pool, log: string[], who: string) =>
    new SingleRunner({
      pool,
      name: 'subscription:test.views',
      retryMs: 20,
      start: async () => void log.push(`${who} started`),
      stop: async () => void log.push(`${who} stopped`),
    });

  it('runs the work in one instance only, and hands it over when that one stops', async () => {
    const log: string[] = [];
    const [a, b] = [runner(pools[0]!, log, 'a'), runner(pools[1]!, log, 'b')];
    await a.start();
    await b.start();
    await new Promise((r) => setTimeout(r, 100));
    expect([a.holding, b.holding]).toEqual([true, false]);
    expect(log).toEqual(['a started']);
    await a.stop();
    for (let i = 0; i < 100 && !b.holding; i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.holding).toBe(true);
    expect(log).toEqual(['a started', 'a stopped', 'b started']);
    await b.stop();
    expect(log.at(-1)).toBe('b stopped');
  });

  it('a holder that dies (its connection closed) gives the lock back', async () => {
    const log: string[] = [];
    const a = runner(pools[0]!, log, 'a');
    const b = runner(pools[1]!, log, 'b');
    await a.start();
    await b.start();
    // Kill a's session as a crash would.
    // Only this database's advisory locks: other suites share the server (and take advisory locks too).
    await pools[1]!.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    for (let i = 0; i < 200 && !b.holding; i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.holding).toBe(true);
    expect(a.holding).toBe(false);
    expect(log).toContain('a stopped');
    await Promise.all([a.stop(), b.stop()]);
  });
});
