import { Client } from 'pg';
import { startTestService, type TestService } from './harness';

/**
 * /ready tells a load balancer whether the service can serve now: 503 service_unavailable in the
 * contract's shape while PostgreSQL cannot be reached (it used to be 500 internal_error, with a stack in
 * the log), 200 again once it can. /health stays 200: the process itself is fine.
 */
describe('/ready follows PostgreSQL', () => {
  let service: TestService;
  let admin: Client;
  let database: string;

  beforeAll(async () => {
    service = await startTestService();
    database = new URL(service.databaseUrl).pathname.slice(1);
    const maintenance = new URL(service.databaseUrl);
    maintenance.pathname = '/postgres';
    admin = new Client({ connectionString: maintenance.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await service.stop();
  });

  it('is 503 service_unavailable while the database refuses connections, 200 once it accepts them again', async () => {
    expect((await service.http('GET', '/ready')).status).toBe(200);

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    const down = await service.http('GET', '/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: { code: 'service_unavailable', message: expect.stringContaining('PostgreSQL') } });
    expect(down.headers.get('request-id')).toBeTruthy();
    expect((await service.http('GET', '/health')).status).toBe(200);

    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
    expect((await service.http('GET', '/ready')).status).toBe(200);
  });
});
