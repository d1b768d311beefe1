import type { Pool } from 'pg';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { DirectoryRepository } from './directory.repository';
import { PeopleRepository } from './people.repository';

describe('DirectoryRepository.findCustomer', () => {
  let pool: Pool;
  let queries = 0;
  let directory: DirectoryRepository;

  beforeAll(async () => {
    const url = await createTestDatabase('gw_directory');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 2, statementTimeoutMs: 10_000 });
    // The repository's statements, counted.
    const counting = new Proxy(pool, { get: (target, key) => (key === 'query' ? (...args: unknown[]) => (queries++, (target.query as (...a: unknown[]) => unknown)(...args)) : Reflect.get(target, key)) });
    directory = new DirectoryRepository(counting);
  });
  afterAll(() => pool.end());

  it('reads a customer once, then answers it from memory; an unknown id is asked again, and found once created', async () => {
    const id = newId('customer');
    queries = 0;
    await expect(directory.findCustomer(id)).resolves.toBeUndefined();
    await expect(directory.findCustomer(id)).resolves.toBeUndefined();
    expect(queries).toBe(2);

    await directory.createCustomer({ id, name: 'C', phone: '+213555000999', pin: '1234', currency: 'MAD' }, new Date());
    queries = 0;
    await expect(directory.findCustomer(id)).resolves.toEqual({ id, currency: 'MAD' });
    await expect(directory.findCustomer(id)).resolves.toEqual({ id, currency: 'MAD' });
    expect(queries).toBe(1);
  });
});

/** A create resumed after a crash (its id kept with an Idempotency-Key) runs again with the same id. */
describe('DirectoryRepository: creates resumed with their id', () => {
  let pool: Pool;
  let directory: DirectoryRepository;

  beforeAll(async () => {
    const url = await createTestDatabase('gw_directory_resume');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 2, statementTimeoutMs: 10_000 });
    directory = new DirectoryRepository(pool);
  });
  afterAll(() => pool.end());

  it('answers the integrator, connection, customer, business user and agent it made; a key gets a new secret, the lost one stops working', async () => {
    const first = new Date('2026-11-01T10:00:00.000Z');
    const later = new Date('2026-11-01T10:05:00.000Z');
    const integratorId = newId('integrator');
    const made = await directory.createIntegrator('Resumed', first, undefined, integratorId);
    const resumed = await directory.createIntegrator('Resumed', later, undefined, integratorId);
    expect(resumed.integrator).toEqual(made.integrator);
    // Its first key again, under a new secret: the lost one stops working, and no second key is left behind.
    expect(resumed.apiKeyId).toBe(made.apiKeyId);
    expect(await directory.findActiveKey(made.apiKey)).toBeUndefined();
    expect((await directory.findActiveKey(resumed.apiKey))?.keyId).toBe(made.apiKeyId);
    expect((await pool.query('SELECT 1 FROM gw_api_keys WHERE integrator_id = $1', [integratorId])).rowCount).toBe(1);

    const connection = { id: newId('connection'), integratorId, kind: 'merchant' as const, name: 'M', currency: 'DZD' as const };
    expect(await directory.createConnection(connection, later)).toEqual(await directory.createConnection(connection, first));
    const customer = { id: newId('customer'), name: 'C', phone: '+213555000998', pin: '1234', currency: 'DZD' as const };
    expect(await directory.createCustomer(customer, later)).toEqual(await directory.createCustomer(customer, first));

    const keyId = newId('apiKey');
    const lost = await directory.createApiKey(integratorId, first, undefined, keyId);
    const again = await directory.createApiKey(integratorId, later, undefined, keyId);
    expect(again.keyId).toBe(keyId);
    expect(again.secret).not.toBe(lost.secret);
    expect(await directory.findActiveKey(lost.secret)).toBeUndefined();
    expect((await directory.findActiveKey(again.secret))?.keyId).toBe(keyId);
    // Another integrator's key id is not taken over.
    const other = (await directory.createIntegrator('Other', first)).integrator.id;
    await expect(directory.createApiKey(other, later, undefined, keyId)).rejects.toThrow(/taken/);

    const financeKeyId = newId('apiKey');
    const lostFinance = await directory.createFinanceKey('Books', first, undefined, financeKeyId);
    const financeAgain = await directory.createFinanceKey('Books', later, undefined, financeKeyId);
    expect(await directory.activeFinanceKeyId(lostFinance.secret)).toBeUndefined();
    expect(await directory.activeFinanceKeyId(financeAgain.secret)).toBe(financeKeyId);
    await expect(directory.createFinanceKey('Books', later, undefined, keyId)).rejects.toThrow(/taken/);

    const people = new PeopleRepository(pool);
    const user = { business: connection.id, name: 'U', login: `resumed.${integratorId}`, password: 'correct horse 1' };
    const userId = newId('businessUser');
    const madeUser = await people.createBusinessUser(user, first, userId);
    expect(await people.createBusinessUser(user, later, userId)).toEqual(madeUser);
    await expect(people.createBusinessUser(user, later)).resolves.toBeUndefined(); // the login is taken
    const agent = { cashPoint: newId('cashPoint'), role: 'cashier' as const, name: 'A', login: `agent.${integratorId}`, password: 'correct horse 2' };
    const agentId = newId('agent');
    const madeAgent = await people.createAgent(agent, first, agentId);
    expect(await people.createAgent(agent, later, agentId)).toEqual(madeAgent);
    await expect(people.createAgent(agent, later)).resolves.toBeUndefined();
  });
});
