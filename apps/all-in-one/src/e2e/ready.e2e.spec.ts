import { Client } from 'pg';
import { startTestService, type TestService } from './harness';

/**
 * /ready tells a load balancer whether the service can serve now: 200 with each dependency checked, 503
 * service_unavailable in the contract's shape, naming what fails, while PostgreSQL cannot be reached (it
 * used to be 500 internal_error, with a stack in the log), 200 again once it can. /health stays 200: the
 * process itself is fine. The distributed run checks the gateway's /ready (the bus is Kafka there).
 */
describe('/ready follows PostgreSQL', () => {
  let service: TestService;
  let admin: Client;
  let database: string;

  beforeAll(async () => {
    service = await startTestService();
    // The gateway's database, which its /ready checks (its own with a database per service).
    database = new URL(service.databaseUrls?.['gateway'] ?? service.databaseUrl).pathname.slice(1);
    const maintenance = new URL(service.serverUrl);
    maintenance.pathname = '/postgres';
    admin = new Client({ connectionString: maintenance.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await service.stop();
  });

  it('is 200 in every process, its bus included (Kafka when distributed: each consumer group joined)', async () => {
    for (const [name, url] of Object.entries(service.processUrls())) {
      const response = await fetch(`${url}/ready`);
      expect({ name, status: response.status, body: await response.json() }).toEqual({
        name,
        status: 200,
        body: { status: 'ok', checks: { postgres: 'up', bus: 'up', subscriptions: 'up' } },
      });
    }
  });

  it('is 503 service_unavailable while the database refuses connections, 200 once it accepts them again', async () => {
    const up = await service.http('GET', '/ready');
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ status: 'ok', checks: { postgres: 'up', bus: 'up', subscriptions: 'up' } });

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    const down = await service.http('GET', '/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: { code: 'service_unavailable', message: expect.stringContaining('PostgreSQL is unreachable') } });
    expect(down.body.error.message).toMatch(/^not ready: /);
    expect(down.headers.get('request-id')).toBeTruthy();
    expect((await service.http('GET', '/health')).status).toBe(200);

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
    expect((await service.http('GET', '/ready')).status).toBe(200);
  });
});
