import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import type { ServiceError } from '@pay/contracts';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, sequentialScans } from '@pay/testing';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { IdempotencyStore } from './idempotency';

/**
 * Creates that arrive together: their new keys are claimed in one statement, their answers stored in
 * one more, and a key twice among them still creates one object.
 */
describe('idempotency keys claimed together', () => {
  let pool: Pool;
  let store: IdempotencyStore;
  beforeAll(async () => {
    const url = await createTestDatabase('idempotency_group');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 10, statementTimeoutMs: 10_000 });
    store = new IdempotencyStore(pool, pool);
  });
  afterAll(() => pool.end());

  const reply = () => {
    const headers: Record<string, string> = {};
    const fake = { status: () => fake, header: (name: string, value: string) => ((headers[name] = value), fake), headers };
    return fake;
  };
  const create = (key: string, body: object, made: string[]) =>
    store.run({ scope: 'int_group', key, endpoint: 'POST /v1/payments', objectKind: 'payment' }, { body, reply: reply() as unknown as FastifyReply }, async (objectId) => {
      made.push(objectId);
      return { id: objectId, ...body };
    });
  /** A row's xmin is the transaction that last wrote it. */
  const writers = async (keys: string[]) =>
    (await pool.query<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM gw_idempotency_keys WHERE scope = 'int_group' AND key = ANY ($1)`, [keys])).rows[0]!.n;

  it('claims the new keys of creates started together in one statement, and stores their answers in one more', async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `together-${i}`);
    const made: string[] = [];
    const answers = await Promise.all(keys.map((key, i) => create(key, { amount: i }, made)));
    expect(new Set(made).size).toBe(20);
    expect(answers.map((answer) => answer.id).sort()).toEqual([...made].sort());
    const { rows } = await pool.query<{ key: string; state: string; response_body: { id: string } }>(
      `SELECT key, state, response_body FROM gw_idempotency_keys WHERE scope = 'int_group' AND key = ANY ($1) ORDER BY key`,
      [keys],
    );
    expect(rows.every((row) => row.state === 'done')).toBe(true);
    expect(rows.map((row) => row.response_body.id).sort()).toEqual([...made].sort());
    expect(await writers(keys)).toBe(1);
  });

  it('a key twice among creates started together creates one object: the other is told the key is in use, and a retry replays it', async () => {
    const made: string[] = [];
    const outcomes = await Promise.allSettled([create('twice', { amount: 1 }, made), create('twice', { amount: 1 }, made), create('once', { amount: 2 }, made)]);
    expect(made).toHaveLength(2);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason as ServiceError;
    expect(refused.code).toBe('idempotency_key_in_use');
    const first = (outcomes[0] as PromiseFulfilledResult<{ id: string }>).value;
    expect(await create('twice', { amount: 1 }, made)).toEqual(first);
    expect(made).toHaveLength(2);
  });
});

/**
 * The keys table starts empty and grows by thousands of rows a minute; its statistics follow when
 * autovacuum gets to it. A plan kept from when it was small would read every row to store one answer.
 */
describe('storing answers as the keys table grows', () => {
  let pool: Pool;
  beforeAll(async () => {
    const url = await createTestDatabase('idempotency_growth');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    // One connection: every statement below runs in the same session, with the plans it keeps.
    pool = createPool(url, { max: 1, statementTimeoutMs: 10_000 });
  });
  afterAll(() => pool.end());

  it('finds the rows of an answer by the primary key after the table has grown past the statistics', async () => {
    const store = new IdempotencyStore(pool, pool);
    const create = (key: string) =>
      store.run({ scope: 'int_growth', key, endpoint: 'POST /v1/payments', objectKind: 'payment' }, { body: { key }, reply: {} as FastifyReply }, async (objectId) => ({ id: objectId }));
    await pool.query('ANALYZE gw_idempotency_keys');
    // PostgreSQL plans a named statement's first five runs for their values, then may keep a generic plan.
    for (let i = 0; i < 8; i++) await create(`small-${i}`);
    await pool.query(
      `INSERT INTO gw_idempotency_keys (scope, key, endpoint, request_sha256, object_id, state, response_status, response_body)
       SELECT 'int_growth', 'bulk-' || g, 'POST /v1/payments', md5(g::text), 'pay_' || g, 'done', 201, '{}' FROM generate_series(1, 20000) AS g`,
    );
    const before = await sequentialScans(pool, 'gw_idempotency_keys');
    await create('after-growth');
    expect(await sequentialScans(pool, 'gw_idempotency_keys')).toBe(before);
  });
});
