import { Client } from 'pg';
import { createTestDatabase, TcpProxy } from '@pay/testing';
import { createIntegrator, idempotencyKey, paymentBody, startTestService, type Integrator, type Response, type TestService } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL going away under a running service: requests are answered `503 service_unavailable` with
 * Retry-After (never 500, never a hang), the process survives its connections being cut, and it serves
 * again once the database is back, without a restart; nothing is lost or doubled. Also in the
 * distributed topology (every app's database behind the proxy; each process's /ready checked).
 */
describe('the database going away', () => {
  let service: TestService;
  let proxy: TcpProxy;
  let databaseUrl: string;
  let shop: Integrator;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase('outage');
    proxy = TcpProxy.forUrl(databaseUrl);
    await proxy.start();
    service = await startTestService({ DATABASE_URL: proxy.urlThrough(databaseUrl) });
    shop = await createIntegrator(service);
  });
  afterAll(async () => {
    await proxy.thaw();
    await service.stop();
    await proxy.stop();
  });

  const expectUnavailable = (response: Response) => {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  };
  /** Until a request succeeds (the service recovered), at most `withinMs`. */
  const recovered = async (withinMs: number, request: () => Promise<Response>): Promise<Response> => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const response = await request();
      if (response.status < 500 || Date.now() > deadline) return response;
      expect(response.status).toBe(503);
      await sleep(250);
    }
  };

  it('PostgreSQL stopped: 503 service_unavailable with Retry-After; started again: served within 10 s, the retried create made once', async () => {
    const key = idempotencyKey();
    const body = paymentBody(shop.merchant);
    await proxy.stop();
    try {
      // A fresh key each time: the gateway's own reads (API keys, idempotency) reach the database too.
      const fresh = await service.admin('POST', `/admin/v1/integrators/${shop.id}/api_keys`);
      expectUnavailable(fresh);
      expectUnavailable(await service.http('GET', '/v1/payments', { key: shop.apiKey }));
      expectUnavailable(await service.http('POST', '/v1/payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } }));
    } finally {
      await proxy.start();
    }
    const created = await recovered(10_000, () => service.http('POST', '/v1/payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } }));
    expect(created.status).toBe(201);
    const again = await service.http('POST', '/v1/payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } });
    expect(again.body.id).toBe(created.body.id);
    const listed = await service.http('GET', `/v1/payments?order_reference=${body.order_reference}`, { key: shop.apiKey });
    expect(listed.body.data).toHaveLength(1);
  });

  it('PostgreSQL stopped 10 s under traffic, then started: every answer 2xx or 503, each payment made once, every process ready within 10 s', async () => {
    const statuses: number[] = [];
    const made = new Map<string, string>(); // order_reference → payment id
    const refusals: { request: string; status: number; body: unknown }[] = []; // what a failure reports
    let traffic = true;
    /** A client that creates payments one after another, retrying each (same key) until it is made. */
    const client = async () => {
      while (traffic) {
        const key = idempotencyKey();
        const body = paymentBody(shop.merchant);
        const deadline = Date.now() + 60_000;
        for (;;) {
          // A retry after a 503 is processed at once: never 409 idempotency_key_in_use (its first attempt has answered).
          const response = await service.http('POST', '/v1/payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } });
          statuses.push(response.status);
          if (response.status !== 201 && response.status !== 503) refusals.push({ request: 'create', status: response.status, body: response.body });
          if (response.status === 201) {
            made.set(body.order_reference, response.body.id);
            break;
          }
          if (response.status !== 503 || Date.now() > deadline) return;
          // As a client should: after the Retry-After the 503 carries.
          await sleep(Number(response.headers.get('retry-after')) * 1000);
        }
        const read = await service.http('GET', '/v1/payments?limit=1', { key: shop.apiKey });
        statuses.push(read.status);
        if (read.status !== 200 && read.status !== 503) refusals.push({ request: 'list', status: read.status, body: read.body });
      }
    };
    const clients = Promise.all([client(), client(), client()]);
    await sleep(1_000);
    await proxy.stop();
    let startedAt = 0;
    try {
      await sleep(10_000);
    } finally {
      await proxy.start();
      startedAt = Date.now();
    }
    // Ready again without a restart: every process's /ready answers 200 within 10 s.
    const readyWithin: Record<string, number> = {};
    await Promise.all(
      Object.entries(service.processUrls()).map(async ([name, url]) => {
        for (;;) {
          const response = await fetch(`${url}/ready`).catch(() => undefined);
          if (response?.status === 200 || Date.now() - startedAt > 30_000) break;
          await sleep(200);
        }
        readyWithin[name] = Date.now() - startedAt;
      }),
    );
    await sleep(1_000);
    traffic = false;
    await clients;
    for (const within of Object.values(readyWithin)) expect(within).toBeLessThan(10_000);
    expect(refusals).toEqual([]);
    expect(statuses.filter((status) => status !== 503 && (status < 200 || status >= 300))).toEqual([]);
    expect(statuses).toContain(503);
    expect(made.size).toBeGreaterThanOrEqual(3); // each client's create caught by the outage, at least
    // Nothing lost, nothing doubled: each payment answered once is there, once.
    for (const [reference, id] of made) {
      const listed = await service.http('GET', `/v1/payments?order_reference=${reference}`, { key: shop.apiKey });
      expect({ reference, ids: listed.body.data.map((p: { id: string }) => p.id) }).toEqual({ reference, ids: [id] });
    }
  });

  it('PostgreSQL frozen: a request is answered 503 within 30 s, never left hanging', async () => {
    proxy.freeze();
    try {
      const started = Date.now();
      const fresh = await service.admin('POST', `/admin/v1/integrators/${shop.id}/api_keys`);
      expect(Date.now() - started).toBeLessThan(30_000);
      expectUnavailable(fresh);
    } finally {
      await proxy.thaw();
    }
    expect((await recovered(10_000, () => service.http('GET', '/v1/payments', { key: shop.apiKey }))).status).toBe(200);
  });

  it('its connections cut under traffic (pg_terminate_backend): the process survives, answers 2xx or 503, and serves again', async () => {
    const admin = new Client({ connectionString: databaseUrl });
    admin.on('error', () => undefined);
    await admin.connect();
    const statuses: number[] = [];
    let traffic = true;
    const load = (async () => {
      while (traffic) {
        const responses = await Promise.all([
          service.http('GET', '/v1/payments', { key: shop.apiKey }),
          service.http('POST', '/v1/payments', { key: shop.apiKey, body: paymentBody(shop.merchant), headers: { 'Idempotency-Key': idempotencyKey() } }),
        ]);
        statuses.push(...responses.map((r) => r.status));
      }
    })();
    try {
      for (let round = 0; round < 5; round++) {
        await sleep(300);
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      }
    } finally {
      traffic = false;
      await load;
      await admin.end();
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    expect((await recovered(10_000, () => service.http('GET', '/v1/payments', { key: shop.apiKey }))).status).toBe(200);
  });
});
