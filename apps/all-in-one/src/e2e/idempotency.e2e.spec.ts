import { createHash } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { createIntegrator, idempotencyKey, paymentBody, startTestService, type Integrator, type TestService } from './harness';

describe('contract section 3: idempotency of creates', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  const create = (key: string, body: unknown, apiKey = shop.apiKey) =>
    service.http('POST', '/v1/payments', { key: apiKey, body, headers: { 'Idempotency-Key': key } });

  it('same key, same body: the original response again, with Idempotent-Replayed: true, and no second payment', async () => {
    const key = idempotencyKey();
    const body = paymentBody(shop.merchant);
    const first = await create(key, body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(key, { ...body }); // same JSON, keys in another order make no difference
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The same body, byte for byte: its fields in the order the first answer gave them.
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
  });

  it('same key, other body: 409 idempotency_key_reused', async () => {
    const key = idempotencyKey();
    expect((await create(key, paymentBody(shop.merchant, { order_reference: 'a' }))).status).toBe(201);
    const reused = await create(key, paymentBody(shop.merchant, { order_reference: 'b' }));
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('keys are scoped to the integrator: another integrator may use the same key', async () => {
    const key = idempotencyKey();
    const other = await createIntegrator(service);
    const mine = await create(key, paymentBody(shop.merchant));
    const theirs = await create(key, paymentBody(other.merchant), other.apiKey);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('a request that failed validation stores no result: the key then works for a valid request', async () => {
    const key = idempotencyKey();
    expect((await create(key, paymentBody(shop.merchant, { amount: 0 }))).status).toBe(400);
    expect((await create(key, paymentBody('conn_unknown000000000000000000'))).status).toBe(403);
    const valid = await create(key, paymentBody(shop.merchant));
    expect(valid.status).toBe(201);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  it('different keys create different payments', async () => {
    const body = paymentBody(shop.merchant);
    const [a, b] = [await create(idempotencyKey(), body), await create(idempotencyKey(), body)];
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('10 concurrent creates with one key give one payment: each answer is that payment or 409 idempotency_key_in_use', async () => {
    const key = idempotencyKey();
    const body = paymentBody(shop.merchant);
    const responses = await Promise.all(Array.from({ length: 10 }, () => create(key, body)));
    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of inUse) expect(r.body.error.code).toBe('idempotency_key_in_use');
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    // Afterwards the key answers the one payment.
    const replay = await create(key, body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(created[0]!.body.id);
    const ids = await countPaymentsWithOrder(body.order_reference);
    expect(ids).toBe(1);
  });

  /** Counts payment streams created for an order reference, straight from the event store. */
  const countPaymentsWithOrder = async (orderReference: string): Promise<number> => {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM es_events WHERE type = 'PaymentCreated' AND data->>'orderReference' = $1`, [orderReference]);
      return rows[0].n;
    } finally {
      await client.end();
    }
  };

  it('admin top-ups honour Idempotency-Key too: one credit for a repeated request', async () => {
    const customer = await service.admin('POST', '/admin/v1/customers', { body: { name: 'B', phone: '+213555000222', pin: '123456', currency: 'DZD' } });
    const key = idempotencyKey();
    const body = { account: customer.body.id, amount: 5_000, currency: 'DZD' };
    const first = await service.admin('POST', '/admin/v1/topups', { body, headers: { 'Idempotency-Key': key } });
    const again = await service.admin('POST', '/admin/v1/topups', { body, headers: { 'Idempotency-Key': key } });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await service.admin('GET', `/admin/v1/balances/${customer.body.id}`)).body.available).toBe(5_000);
  });

  /** The gateway's table rows as JSON text (the database the gateway writes). */
  const gatewayRows = async (sql: string, values: unknown[] = []): Promise<string> => {
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    try {
      return (await db.query<{ row: string }>(sql, values)).rows.map((r) => r.row).join('\n');
    } finally {
      await db.end();
    }
  };
  const auditEventsOf = async (targetId: string): Promise<number> => {
    const text = await gatewayRows('SELECT row_to_json(e)::text AS row FROM gw_audit_events e WHERE target_id = $1', [targetId]);
    return text === '' ? 0 : text.split('\n').length;
  };

  it('every admin create honours Idempotency-Key: the replay answers the original, no second object, no second audit event', async () => {
    const business = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'business', name: 'B', currency: 'DZD' } });
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Agents\' point', address: '3 rue' } });
    const login = `retried.${process.pid}.${Date.now()}`;
    const creates: { path: string; body?: Record<string, unknown>; secret?: string }[] = [
      { path: '/admin/v1/integrators', body: { name: 'Retried integrator' }, secret: 'api_key' },
      { path: '/admin/v1/finance_keys', body: { name: 'Retried finance key' }, secret: 'api_key' },
      { path: `/admin/v1/integrators/${shop.id}/api_keys`, body: {}, secret: 'api_key' },
      { path: `/admin/v1/integrators/${shop.id}/api_keys` }, // no body at all
      { path: '/admin/v1/connections', body: { integrator: shop.id, kind: 'merchant', name: 'Retried connection', currency: 'DZD' } },
      { path: '/admin/v1/customers', body: { name: 'Retried customer', phone: '+213555000333', pin: '123456', currency: 'DZD' } },
      { path: '/admin/v1/beneficiaries', body: { business: business.body.id, account_name: 'Retried beneficiary', currency: 'DZD' } },
      { path: '/admin/v1/cash_points', body: { name: 'Retried point', address: '2 rue' } },
      { path: '/admin/v1/business_users', body: { business: business.body.id, name: 'Retried user', login: `${login}.user`, password: 'correct horse 1' } },
      { path: '/admin/v1/agents', body: { cash_point: point.body.id, name: 'Retried agent', login: `${login}.agent`, password: 'correct horse 2' } },
    ];
    const secrets: string[] = [];
    for (const { path, body, secret } of creates) {
      const headers = { 'Idempotency-Key': idempotencyKey() };
      const first = await service.admin('POST', path, { ...(body === undefined ? {} : { body }), headers });
      const again = await service.admin('POST', path, { ...(body === undefined ? {} : { body }), headers });
      expect({ path, status: first.status, replayed: first.headers.get('idempotent-replayed') }).toEqual({ path, status: 201, replayed: null });
      expect({ path, status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ path, status: 201, replayed: 'true' });
      expect(again.body).toEqual(first.body);
      if (secret !== undefined) {
        secrets.push(first.body[secret]);
        expect(again.headers.get('cache-control')).toContain('no-store');
      }
      expect({ path, events: await auditEventsOf(first.body.id) }).toEqual({ path, events: 1 });
      // The same key with another body is a reuse.
      if (body !== undefined && Object.keys(body).length > 0) {
        const reused = await service.admin('POST', path, { body: { ...body, ['name' in body ? 'name' : 'account_name']: 'Another' }, headers });
        expect({ path, status: reused.status, code: reused.body.error?.code }).toEqual({ path, status: 409, code: 'idempotency_key_reused' });
      }
    }
    // One API key per admin create of a key, whatever the retries: the integrator's first key, and the two above.
    const keys = (await service.http('GET', '/v1/api_keys?limit=100', { key: shop.apiKey })).body.data as unknown[];
    expect(keys).toHaveLength(3);
    // The stored answers hold no secret as it is.
    const stored = await gatewayRows('SELECT row_to_json(i)::text AS row FROM gw_idempotency_keys i');
    expect(secrets).toHaveLength(3);
    for (const secret of secrets) expect(stored).not.toContain(secret);
  });

  it('a customer create\'s stored request digest is keyed: the database holds no plain hash to test PINs against', async () => {
    const key = idempotencyKey();
    const body = { currency: 'DZD', name: 'Digest', phone: '+213555000444', pin: '4821' };
    expect((await service.admin('POST', '/admin/v1/customers', { body, headers: { 'Idempotency-Key': key } })).status).toBe(201);
    const stored = JSON.parse(await gatewayRows('SELECT row_to_json(i)::text AS row FROM gw_idempotency_keys i WHERE key = $1', [key]));
    // The body's keys sorted, as the store canonicalises it.
    const plain = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    expect(stored.request_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.request_sha256).not.toBe(plain);
    const replay = await service.admin('POST', '/admin/v1/customers', { body, headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a replayed webhook endpoint create answers its secret to the same caller only; the stored answer holds no whsec_', async () => {
    const restricted = await service.http('POST', '/v1/api_keys', { key: shop.apiKey, body: { name: 'Webhooks', scopes: ['webhook_endpoints:write'] } });
    expect(restricted.status).toBe(201);
    const headers = { 'Idempotency-Key': idempotencyKey() };
    const body = { url: 'http://localhost:9/hooks', enabled_events: ['*'] };
    const first = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const again = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await service.http('POST', '/v1/webhook_endpoints', { key: restricted.body.api_key, body, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(JSON.stringify(other.body)).not.toContain('whsec_');
    const stored = await gatewayRows('SELECT row_to_json(i)::text AS row FROM gw_idempotency_keys i');
    expect(stored).not.toContain(first.body.secret);
    expect(stored).not.toContain('whsec_');
    expect(await auditEventsOf(first.body.id)).toBe(1);
  });

  it('a replayed bank account create answers the full IBAN to the same caller only; the stored answer holds no IBAN', async () => {
    const restricted = await service.http('POST', '/v1/api_keys', { key: shop.apiKey, body: { name: 'Bank', scopes: ['bank_accounts:write'] } });
    expect(restricted.status).toBe(201);
    const headers = { 'Idempotency-Key': idempotencyKey() };
    const fullIban = 'DZ580002100001113000000570';
    const body = { connection: shop.merchant, account_holder: 'Atlas Trading SARL', iban: fullIban };
    const first = await service.http('POST', '/v1/bank_accounts', { key: shop.apiKey, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.iban).toBe(fullIban);
    const again = await service.http('POST', '/v1/bank_accounts', { key: shop.apiKey, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await service.http('POST', '/v1/bank_accounts', { key: restricted.body.api_key, body, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(JSON.stringify(other.body)).not.toContain(fullIban);
    const stored = await gatewayRows('SELECT row_to_json(i)::text AS row FROM gw_idempotency_keys i');
    expect(stored).not.toContain(fullIban);
  });
});
