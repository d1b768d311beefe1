import type { Pool } from 'pg';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { DirectoryRepository } from './directory.repository';

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
