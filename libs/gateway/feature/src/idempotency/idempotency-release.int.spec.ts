import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { ServiceError } from '@pay/contracts';
import { createPool, endPool, runMigrations } from '@pay/platform';
import { createTestDatabase, setUp, TcpProxy } from '@pay/testing';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { IdempotencyStore, type IdempotentCall } from './idempotency';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A create answered 503 (PostgreSQL gone) must not keep its Idempotency-Key held: the client's retry
 * once PostgreSQL is back is processed at once, with the same object id, while a duplicate sent during
 * an attempt still in flight gets 409 idempotency_key_in_use. The gateway's PostgreSQL is reached
 * through a TCP proxy that fails it at an exact step.
 */
describe('an Idempotency-Key after a create answered 503', () => {
  let url: string;
  let direct: Pool;
  let proxy: TcpProxy;
  const pools: Pool[] = [];
  const throughProxy = () => {
    // One connection each: the one warmed up is the one the step under test uses.
    const pool = createPool(proxy.urlThrough(url), { max: 1, statementTimeoutMs: 10_000 });
    pool.on('error', () => undefined); // the proxy cuts its connections
    pools.push(pool);
    return pool;
  };
  const newStore = () => new IdempotencyStore(throughProxy(), throughProxy());

  setUp(async () => {
    url = await createTestDatabase('idempotency_release');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    direct = createPool(url, { max: 2, statementTimeoutMs: 10_000 });
    proxy = TcpProxy.forUrl(url);
    await proxy.start();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => endPool(pool).catch(() => undefined)));
    await proxy?.stop();
    if (direct) await endPool(direct);
  }, 60_000);

  let keys = 0;
  const newCall = (): IdempotentCall => ({ scope: 'int_release', key: `key-${++keys}`, endpoint: 'POST /v1/payments', objectKind: 'payment' });
  const request = { body: { amount: 100 }, reply: { header: () => request.reply, status: () => request.reply } as unknown as FastifyReply };
  const made = (objectIds: string[]) => async (objectId: string) => {
    objectIds.push(objectId);
    return { id: objectId };
  };
  const rowOf = async (call: IdempotentCall) =>
    (await direct.query<{ object_id: string; state: string }>('SELECT object_id, state FROM gw_idempotency_keys WHERE scope = $1 AND key = $2', [call.scope, call.key]))
      .rows[0];
  const unavailable = () => new ServiceError('service_unavailable', 'the database is unavailable');

  it('a claim that reached PostgreSQL but whose answer was lost: the retry after the 503 is processed at once, with the claimed object id', async () => {
    const store = newStore();
    await store.run(newCall(), request, made([])); // its connections open
    const call = newCall();
    proxy.swallowReplies();
    const created: string[] = [];
    const first = store.run(call, request, made(created));
    first.catch(() => undefined);
    while (!(await rowOf(call))) await sleep(20); // claimed in PostgreSQL; the gateway never hears it
    await proxy.stop();
    await expect(first).rejects.toThrow();
    await proxy.start();

    const retried = await store.run(call, request, made(created));
    const row = await rowOf(call);
    expect(created).toEqual([row!.object_id]);
    expect(retried).toEqual({ id: row!.object_id });
    expect(row!.state).toBe('done');
  });

  it('a create answered 503 while PostgreSQL is stopped: a duplicate meanwhile gets 409; the retry once it is back is processed at once, with the same object id', async () => {
    const store = newStore();
    await store.run(newCall(), request, made([]));
    const call = newCall();
    const created: string[] = [];
    let fail: (error: Error) => void = () => undefined;
    const first = store.run(call, request, async (objectId) => {
      created.push(objectId);
      await new Promise((_, reject) => (fail = reject));
    });
    first.catch(() => undefined);
    while (created.length === 0) await sleep(10);

    await expect(store.run(call, request, made(created))).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    await proxy.stop();
    fail(unavailable());
    await expect(first).rejects.toMatchObject({ code: 'service_unavailable' });
    await proxy.start();

    const retried = await store.run(call, request, made(created));
    expect(created).toHaveLength(2);
    expect(created[1]).toBe(created[0]);
    expect(retried).toEqual({ id: created[0] });
    expect((await rowOf(call))!.state).toBe('done');
  });

  it("another gateway's attempt: refused while it runs, taken over once it released the key, and after a crash only once its lock ended", async () => {
    const [one, two] = [newStore(), newStore()];
    const call = newCall();
    const created: string[] = [];
    let fail: (error: Error) => void = () => undefined;
    const first = one.run(call, request, async (objectId) => {
      created.push(objectId);
      await new Promise((_, reject) => (fail = reject));
    });
    first.catch(() => undefined);
    while (created.length === 0) await sleep(10);
    await expect(two.run(call, request, made(created))).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    fail(unavailable());
    await expect(first).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(two.run(call, request, made(created))).resolves.toEqual({ id: created[0] });

    // A gateway that stopped mid-create (its attempt never answered): its key waits for the lock's end.
    const crashed = newCall();
    const lost: string[] = [];
    void one.run(crashed, request, async (objectId) => {
      lost.push(objectId);
      return new Promise(() => undefined);
    });
    while (lost.length === 0) await sleep(10);
    const restarted = newStore();
    await expect(restarted.run(crashed, request, made(lost))).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    await direct.query(`UPDATE gw_idempotency_keys SET locked_until = now() - interval '1 second' WHERE scope = $1 AND key = $2`, [crashed.scope, crashed.key]);
    await expect(restarted.run(crashed, request, made(lost))).resolves.toEqual({ id: lost[0] });
    expect(lost).toEqual([lost[0], lost[0]]);
  });
});
