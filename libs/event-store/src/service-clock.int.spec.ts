import type { Pool } from 'pg';
import { createPool, endPool, PersistentOffsetClock, PLATFORM_MIGRATIONS, runMigrations, ServiceClockStore } from '@pay/platform';
import { OffsetClock } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';

const until = async (condition: () => boolean, withinMs: number): Promise<number> => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - started;
};

/**
 * Two instances of an app on its database: the one told of a clock advance stores it, the other follows
 * at once, by LISTEN rather than by reading `service_clock` every 50 ms (twenty reads a second per idle
 * instance). Lives here, beside the other PostgreSQL specs, because @pay/testing depends on @pay/platform.
 */
describe('PersistentOffsetClock', () => {
  let url: string;
  const pools: Pool[] = [];
  const clocks: PersistentOffsetClock[] = [];
  const instance = async (refreshMs: number) => {
    const pool = createPool(url, { max: 3, statementTimeoutMs: 10_000 });
    pools.push(pool);
    const clock = new PersistentOffsetClock(pool);
    clocks.push(clock);
    await clock.start(refreshMs);
    return { pool, clock };
  };

  beforeAll(async () => {
    url = await createTestDatabase('platform_service_clock');
    await runMigrations(url, [PLATFORM_MIGRATIONS]);
  });
  afterAll(async () => {
    for (const clock of clocks) await clock.stop();
    for (const pool of pools) await endPool(pool);
  });

  it('follows an offset another instance stores well before its interval, and after its LISTEN connection is lost', async () => {
    // An interval far longer than the follow: only the announcement can make it in time.
    const a = await instance(60_000);
    const b = await instance(60_000);
    expect(b.clock.listening).toBe(true);

    a.clock.observeOffset(5_000);
    await a.clock.stored();
    await until(() => b.clock.offset === 5_000, 500);

    // The gateway's advance announces too.
    await new ServiceClockStore(a.pool).advance(new OffsetClock(), 10);
    await until(() => b.clock.offset === 15_000, 500);

    // Lost: the other instance reads again once it listens again, and follows announcements after.
    await a.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN pay_service_clock' AND pid <> pg_backend_pid()`);
    await until(() => !b.clock.listening, 2_000);
    a.clock.observeOffset(20_000);
    await a.clock.stored();
    await until(() => b.clock.listening && b.clock.offset === 20_000, 5_000);
    a.clock.observeOffset(25_000);
    await a.clock.stored();
    await until(() => b.clock.offset === 25_000, 500);
  });

  it('reads by its short interval while it is not listening, by the long one while it is', async () => {
    const { pool, clock } = await instance(50);
    // Stored without an announcement (an older instance): listening, it is read within a second, not 50 ms.
    await pool.query('UPDATE service_clock SET offset_ms = GREATEST(offset_ms, 30000)');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(clock.offset).toBeLessThan(30_000);
    await until(() => clock.offset === 30_000, 2_000);

    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN pay_service_clock' AND pid <> pg_backend_pid()`);
    await until(() => !clock.listening, 2_000);
    await pool.query('UPDATE service_clock SET offset_ms = GREATEST(offset_ms, 40000)');
    // Before its LISTEN is tried again (a second later): the 50 ms reads.
    expect(await until(() => clock.offset === 40_000, 2_000)).toBeLessThan(400);
  });
});
