import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { ApiKeysRepository } from '../directory/api-keys.repository';
import { DirectoryRepository } from '../directory/directory.repository';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyAuthenticator, LastUses } from './auth';
import { RateLimiter } from './rate-limiter';
import { FULL_ACCESS, RequiresScope } from './scopes';

const request = (secret: string, method = 'GET') => ({ headers: { authorization: `Bearer ${secret}` }, method }) as unknown as FastifyRequest;
const reply = { header: () => reply } as unknown as FastifyReply;

/** Two gateways (two authenticators, each with its cache and pool) over one database, as in the distributed topology. */
describe('API keys across gateways', () => {
  let pools: Pool[];
  let keys: ApiKeysRepository;
  let integratorId: string;
  let now = Date.now();
  const clock = { now: () => new Date(now) };
  let gateways: ApiKeyAuthenticator[];

  beforeAll(async () => {
    const url = await createTestDatabase('gw_api_keys');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pools = [createPool(url, { max: 2, statementTimeoutMs: 10_000 }), createPool(url, { max: 2, statementTimeoutMs: 10_000 })];
    keys = new ApiKeysRepository(pools[0]!);
    integratorId = (await new DirectoryRepository(pools[0]!).createIntegrator('Two gateways', new Date())).integrator.id;
    gateways = pools.map((pool) => new ApiKeyAuthenticator(new DirectoryRepository(pool), new RateLimiter(0), clock));
  });
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  const accepted = (gateway: ApiKeyAuthenticator, secret: string) =>
    gateway.authenticate(request(secret), reply).then(
      () => true,
      () => false,
    );

  it('a key revoked through one gateway is refused by both within a second, though both had it cached', async () => {
    const { key, secret } = await keys.create(integratorId, { name: 'r', scopes: ['events:read'], expiresAt: null }, clock.now());
    for (const gateway of gateways) expect(await accepted(gateway, secret)).toBe(true);
    const revokedAt = Date.now();
    await keys.revoke(integratorId, key.id, clock.now());
    gateways[0]!.forget(key.id);
    expect(await accepted(gateways[0]!, secret)).toBe(false);
    while (await accepted(gateways[1]!, secret)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });

  it('a rolled key works on both gateways up to the last millisecond of its overlap, and on neither from then on', async () => {
    now = Date.now();
    const { key, secret } = await keys.create(integratorId, { name: 'o', scopes: ['events:read'], expiresAt: null }, clock.now());
    for (const gateway of gateways) expect(await accepted(gateway, secret)).toBe(true);
    const rolled = await keys.roll(integratorId, key.id, 60, clock.now());
    const ends = Date.parse(rolled.old.expires_at!);
    expect(ends).toBe(now + 60_000);
    // Each gateway's cache, filled before the roll, is read again within its time-to-live.
    await new Promise((resolve) => setTimeout(resolve, 600));
    now = ends - 1;
    for (const gateway of gateways) expect(await accepted(gateway, secret)).toBe(true);
    now = ends;
    for (const gateway of gateways) expect(await accepted(gateway, secret)).toBe(false);
    for (const gateway of gateways) expect(await accepted(gateway, rolled.secret)).toBe(true);
  });

  it('a create retried after a crash before its answer was stored (same key id) issues the key again: one key, only the new secret works', async () => {
    const id = newId('apiKey');
    const input = { name: 'retried', scopes: ['payments:read'], expiresAt: null };
    const first = await keys.create(integratorId, input, clock.now(), id);
    const again = await keys.create(integratorId, input, clock.now(), id);
    expect(again.key).toMatchObject({ id, name: 'retried', scopes: ['payments:read'], status: 'active' });
    expect(again.secret).not.toBe(first.secret);
    expect((await pools[0]!.query('SELECT count(*)::int AS n FROM gw_api_keys WHERE id = $1', [id])).rows[0].n).toBe(1);
    expect(await accepted(gateways[1]!, first.secret)).toBe(false);
    expect(await accepted(gateways[1]!, again.secret)).toBe(true);
    // Another integrator's retry cannot take the key over.
    const other = (await new DirectoryRepository(pools[0]!).createIntegrator('Other', new Date())).integrator.id;
    await expect(keys.create(other, input, clock.now(), id)).rejects.toThrow();
  });

  it("a roll retried after a crash (same new key id) issues the new key again and leaves the old key's overlap as the first roll set it", async () => {
    const { key: old } = await keys.create(integratorId, { name: 'rolled twice', scopes: ['events:read'], expiresAt: null }, clock.now());
    const newKeyId = newId('apiKey');
    const first = await keys.roll(integratorId, old.id, 60, clock.now(), newKeyId);
    const later = new Date(clock.now().getTime() + 30_000);
    const again = await keys.roll(integratorId, old.id, 60, later, newKeyId);
    expect(again.key.id).toBe(newKeyId);
    expect(again.old.expires_at).toBe(first.old.expires_at);
    expect(await accepted(gateways[1]!, first.secret)).toBe(false);
    expect(await accepted(gateways[1]!, again.secret)).toBe(true);
  });

  it('last uses are written in one statement per flush, not one per request, and never move back', async () => {
    let writes = 0;
    const lastUses = new LastUses(async (uses) => {
      writes++;
      await keys.recordLastUses(uses);
    });
    const gateway = new ApiKeyAuthenticator(new DirectoryRepository(pools[1]!), new RateLimiter(0), clock, lastUses);
    const { key, secret } = await keys.create(integratorId, { name: 'u', scopes: ['*'], expiresAt: null }, clock.now());
    now = Date.parse('2030-01-01T00:00:00.000Z');
    for (let i = 0; i < 50; i++) expect(await accepted(gateway, secret)).toBe(true);
    expect(writes).toBe(0);
    await lastUses.flush();
    expect(writes).toBe(1);
    expect((await keys.find(integratorId, key.id, clock.now())).last_used_at).toBe('2030-01-01T00:00:00.000Z');
    await keys.recordLastUses(new Map([[key.id, new Date('2029-01-01T00:00:00.000Z')]]));
    expect((await keys.find(integratorId, key.id, clock.now())).last_used_at).toBe('2030-01-01T00:00:00.000Z');
  });

  describe('the guard', () => {
    class Declared {
      read(): void {}
    }
    RequiresScope('payments')(Declared);
    class Undeclared {
      read(): void {}
    }
    class FullAccessOnly {
      read(): void {}
    }
    RequiresScope(FULL_ACCESS)(FullAccessOnly);
    const context = (controller: new () => { read(): void }, secret: string, method = 'GET') =>
      ({
        getHandler: () => controller.prototype.read,
        getClass: () => controller,
        switchToHttp: () => ({ getRequest: () => request(secret, method), getResponse: () => reply }),
      }) as unknown as ExecutionContext;

    it('refuses every key on a route that declares no scope, and checks the declared one (write includes read)', async () => {
      now = Date.now();
      const guard = new ApiKeyGuard(gateways[0]!, new Reflector());
      const full = await keys.create(integratorId, { name: 'f', scopes: ['*'], expiresAt: null }, clock.now());
      const reader = await keys.create(integratorId, { name: 'p', scopes: ['payments:read'], expiresAt: null }, clock.now());
      const writer = await keys.create(integratorId, { name: 'w', scopes: ['payments:write'], expiresAt: null }, clock.now());
      await expect(guard.canActivate(context(Undeclared, full.secret))).rejects.toThrow(/declares no scope/);
      await expect(guard.canActivate(context(Declared, reader.secret))).resolves.toBe(true);
      await expect(guard.canActivate(context(Declared, reader.secret, 'POST'))).rejects.toMatchObject({ code: 'insufficient_scope', param: 'payments:write' });
      await expect(guard.canActivate(context(Declared, writer.secret))).resolves.toBe(true);
      await expect(guard.canActivate(context(Declared, writer.secret, 'POST'))).resolves.toBe(true);
      await expect(guard.canActivate(context(FullAccessOnly, writer.secret))).rejects.toMatchObject({ code: 'insufficient_scope', param: '*' });
      await expect(guard.canActivate(context(FullAccessOnly, full.secret))).resolves.toBe(true);
      // Authentication first: an unknown key is 401 even on an undeclared route.
      await expect(guard.canActivate(context(Undeclared, 'rk_unknown'))).rejects.toMatchObject({ code: 'authentication_required' });
    });
  });
});
