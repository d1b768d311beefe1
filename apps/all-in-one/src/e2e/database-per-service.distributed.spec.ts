import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { SUBSCRIBING_APPS, type AppName } from '@pay/contracts';
import { randomBase62 } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';
import { startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { expectBalancedTrialBalance, httpClient, PUBLIC_BASE_URL, type TestService } from './harness';
import { createWorld, type World } from './world';

/**
 * A database per service. The seven apps start with seven databases on one
 * PostgreSQL, each reached by its own role, and no DATABASE_URL to fall back on: a payment (and its
 * refund), a cash payment, a supplier payment and a collection go through, their webhooks are
 * delivered, the ledger balances; each database holds only its own app's tables, and an app's role
 * cannot even connect to another app's database.
 */
const APPS: AppName[] = ['gateway', 'payments', 'ledger', 'webhooks', 'cash', 'supplier-payments', 'collections'];

/** Each app's tables by prefix (the payments app also owns payouts and bank accounts); every app has the platform's service clock and its migrations tables. */
const OWN_TABLE_PREFIX: Record<AppName, RegExp> = {
  gateway: /^gw_/,
  payments: /^(payment|refund|payout|bank)_/,
  ledger: /^ledger_/,
  webhooks: /^wh_/,
  cash: /^cash_/,
  'supplier-payments': /^sp_/,
  collections: /^collection_/,
};

const tablesOf = async (url: string): Promise<string[]> => {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
    return rows.map((r) => r.tablename);
  } finally {
    await client.end();
  }
};

describe('a database per service (seven databases, seven roles)', () => {
  let topology: DistributedTopology;
  let service: TestService;
  let world: World;

  beforeAll(async () => {
    const adminKey = `admin_${randomBase62(32)}`;
    topology = await startDistributedTopology({
      env: { SANDBOX: 'true', RATE_LIMIT_PER_SECOND: '0', PUBLIC_BASE_URL, ADMIN_API_KEY: adminKey, DATABASE_URL: await createTestDatabase('dbps') },
      dataDir: await mkdtemp(join(tmpdir(), 'pay-dbps-')),
      databasePerService: true,
    });
    const http = httpClient(topology.url);
    service = {
      url: topology.url,
      databaseUrl: topology.databaseUrl,
      databaseUrls: topology.databaseUrls,
      serverUrl: topology.databaseUrl,
      adminKey,
      http,
      admin: (method, path, options = {}) => http(method, path, { key: adminKey, ...options }),
      logs: () => Object.values(topology.instances).flat().map((app) => app.output()).join(''),
      processUrls: () => Object.fromEntries(Object.entries(topology.apps).map(([name, app]) => [name, app.url])),
      stop: () => topology.stop(),
    };
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point DB', address: '1 rue Didouche Mourad, Alger' } });
    expect(point.status).toBe(201);
    // A payment and its refund, a cash payment, a supplier payment, a collection settled; webhooks delivered.
    world = await createWorld(service, { cashPoint: point.body.id, open: false });
  }, 300_000);
  afterAll(async () => {
    await world?.receiver.stop();
    await topology?.stop();
  });

  it('each app got a database of its own, reached by a role of its own', () => {
    const names = APPS.map((app) => new URL(topology.databaseUrls[app]).pathname);
    expect(new Set(names).size).toBe(7);
    const roles = APPS.map((app) => new URL(topology.databaseUrls[app]).username);
    expect(new Set(roles).size).toBe(7);
  });

  it('the four use cases went through: every object reached its final status, the ledger balances', async () => {
    const as = (path: string) => service.http('GET', path, { key: world.key });
    expect((await as(`/v1/payments/${world.ids['payments']![0]}`)).body.status).toBe('succeeded');
    expect((await as(`/v1/cash_payments/${world.ids['cash_payments']![0]}`)).body.status).toBe('succeeded');
    expect((await as(`/v1/supplier_payments/${world.ids['supplier_payments']![0]}`)).body.status).toBe('succeeded');
    expect((await as(`/v1/collections/${world.ids['collections']![0]}`)).body.status).toMatch(/settled|deposited|collected/);
    await expectBalancedTrialBalance(service);
  });

  it("each database holds only its own app's tables: the event store's only where an app keeps streams", async () => {
    const found: Record<string, string[]> = {};
    for (const app of APPS) found[app] = await tablesOf(topology.databaseUrls[app]);
    for (const app of APPS) {
      const tables = found[app]!;
      const platform = tables.filter((t) => t === 'service_clock' || t.startsWith('pgmigrations_'));
      const streams = tables.filter((t) => t.startsWith('es_'));
      const own = tables.filter((t) => !platform.includes(t) && !streams.includes(t));
      expect({ app, migrations: platform.filter((t) => t.startsWith('pgmigrations_')).sort() }).toEqual({
        app,
        migrations: [
          ...((SUBSCRIBING_APPS as readonly string[]).includes(app) ? ['pgmigrations_event_store'] : []),
          `pgmigrations_${app.replace(/-/g, '_')}`,
          'pgmigrations_platform',
        ].sort(),
      });
      expect({ app, streams: streams.length > 0 }).toEqual({ app, streams: (SUBSCRIBING_APPS as readonly string[]).includes(app) });
      // No table of another app: every own table has this app's prefix (and so none of another's).
      expect(own.length).toBeGreaterThan(0);
      for (const table of own) expect({ app, table, owners: APPS.filter((other) => OWN_TABLE_PREFIX[other].test(table)) }).toEqual({ app, table, owners: [app] });
    }
    // Every table of the service exists in exactly one app's database (the platform's and the event store's aside).
    const all = Object.values(found).flat().filter((t) => t !== 'service_clock' && !t.startsWith('pgmigrations_') && !t.startsWith('es_'));
    expect(all.length).toBe(new Set(all).size);
  });

  it("an app's role cannot connect to another app's database", async () => {
    for (const app of APPS) {
      const other = APPS[(APPS.indexOf(app) + 1) % APPS.length]!;
      const crossed = new URL(topology.databaseUrls[app]);
      crossed.pathname = new URL(topology.databaseUrls[other]).pathname;
      const client = new PgClient({ connectionString: crossed.toString() });
      await expect(client.connect()).rejects.toMatchObject({ code: '42501' });
      await client.end().catch(() => undefined);
    }
  });

  it('the service clock is each app\'s own: an advance reaches every app through its deadlines topic and is kept in its database', async () => {
    const advanced = await service.http('POST', '/v1/test_helpers/clock/advance', { key: world.key, body: { seconds: 60 } });
    expect(advanced.status).toBe(200);
    for (const app of ['gateway', ...SUBSCRIBING_APPS, 'webhooks'] as AppName[]) {
      const client = new PgClient({ connectionString: topology.databaseUrls[app] });
      await client.connect();
      try {
        let offset = 0;
        for (let i = 0; i < 50 && offset < 60_000; i++) {
          offset = Number((await client.query<{ offset_ms: string }>('SELECT offset_ms FROM service_clock')).rows[0]!.offset_ms);
          if (offset < 60_000) await new Promise((r) => setTimeout(r, 100));
        }
        expect({ app, offsetAtLeast60s: offset >= 60_000 }).toEqual({ app, offsetAtLeast60s: true });
      } finally {
        await client.end();
      }
    }
  });
});
