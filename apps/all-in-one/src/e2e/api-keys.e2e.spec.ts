import { request as httpRequest } from 'node:http';
import { Client as PgClient } from 'pg';
import { createIntegrator, createPayment, DISTRIBUTED, httpClient, idempotencyKey, paymentBody, startTestService, type Integrator, type Response, type TestService } from './harness';

/**
 * API keys (contract section 16): restricted keys and their scopes, expiry, rolling with an overlap,
 * revocation on every gateway within a second, `last_used_at`, secrets never shown again nor stored.
 */
describe('API keys: scopes, expiry, rolling, revocation', () => {
  let service: TestService;
  /** All-in-one: a second service on the same database, so that two gateways (each with its key cache) answer. */
  let second: TestService | undefined;
  let shop: Integrator;
  let other: Integrator;
  /** Every secret the tests were given: none may be stored or shown again. */
  const secrets: string[] = [];

  beforeAll(async () => {
    service = await startTestService();
    if (!DISTRIBUTED) second = await startTestService({ DATABASE_URL: service.databaseUrl });
    shop = await createIntegrator(service);
    other = await createIntegrator(service);
    secrets.push(shop.apiKey, other.apiKey);
  }, 180_000);
  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  const as = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => service.http(method, path, { key, body, headers });
  const createKey = async (body: Record<string, unknown>, key = shop.apiKey): Promise<Response> => {
    const response = await as(key, 'POST', '/v1/api_keys', body);
    if (typeof response.body?.api_key === 'string') secrets.push(response.body.api_key);
    return response;
  };
  const restricted = async (scopes: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string; body: any }> => {
    const response = await createKey({ name: `key ${scopes.join(' ')}`, scopes, ...extra });
    expect(response.status).toBe(201);
    return { id: response.body.id, secret: response.body.api_key, body: response.body };
  };
  const expectError = (response: Response, status: number, code: string, param?: string) => {
    expect({ status: response.status, code: response.body?.error?.code, ...(param === undefined ? {} : { param: response.body?.error?.param }) }).toEqual({ status, code, ...(param === undefined ? {} : { param }) });
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const OVERLAP_SECONDS = 15;
  /** Each gateway's own client: a cache in one instance must not outlive a revocation made through another. */
  const gateways = (): Client[] => [
    ...Object.entries(service.processUrls())
      .filter(([name]) => name === 'all-in-one' || name.startsWith('gateway'))
      .map(([, url]) => httpClient(url)),
    ...(second ? [httpClient(second.url)] : []),
  ];
  type Client = ReturnType<typeof httpClient>;

  it('creates a restricted key: 201 with its rk_ secret shown once, redacted to its first 3 and last 4 characters', async () => {
    const response = await createKey({ name: 'Order server', scopes: ['payments:write', 'refunds:read'] });
    expect(response.status).toBe(201);
    const secret = response.body.api_key as string;
    expect(secret).toMatch(/^rk_[A-Za-z0-9]{24,}$/);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]{20,}$/),
      object: 'api_key',
      name: 'Order server',
      scopes: ['payments:write', 'refunds:read'],
      redacted: `${secret.slice(0, 3)}${secret.slice(-4)}`,
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      expires_at: null,
      last_used_at: null,
      api_key: secret,
    });
    // A ["*"] key is an sk_ key, like the ones the admin API issues.
    const full = await createKey({ name: 'Everything', scopes: ['*'] });
    expect(full.status).toBe(201);
    expect(full.body.api_key).toMatch(/^sk_/);
    expect(full.body.scopes).toEqual(['*']);
    expect((await as(full.body.api_key, 'GET', '/v1/api_keys')).status).toBe(200);
  });

  it('lists and retrieves the integrator\'s keys (also those the admin API issued) without secrets; another integrator\'s key is 404', async () => {
    const { id } = await restricted(['events:read']);
    const list = await as(shop.apiKey, 'GET', '/v1/api_keys?limit=100');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    const ids = (list.body.data as any[]).map((k) => k.id);
    expect(ids).toContain(id);
    expect(ids).toContain(shop.apiKeyId);
    expect(ids).not.toContain(other.apiKeyId);
    // Newest first.
    expect(ids.indexOf(id)).toBeLessThan(ids.indexOf(shop.apiKeyId));
    const admins = (list.body.data as any[]).find((k) => k.id === shop.apiKeyId);
    expect(admins).toMatchObject({ object: 'api_key', scopes: ['*'], status: 'active', redacted: `${shop.apiKey.slice(0, 3)}${shop.apiKey.slice(-4)}` });
    const retrieved = await as(shop.apiKey, 'GET', `/v1/api_keys/${id}`);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).not.toHaveProperty('api_key');
    const text = JSON.stringify([list.body, retrieved.body]);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expectError(await as(other.apiKey, 'GET', `/v1/api_keys/${id}`), 404, 'resource_not_found');
    expectError(await as(other.apiKey, 'POST', `/v1/api_keys/${id}/revoke`), 404, 'resource_not_found');
    expectError(await as(other.apiKey, 'POST', `/v1/api_keys/${id}/roll`, {}), 404, 'resource_not_found');
    // Pages: limit and starting_after.
    const first = await as(shop.apiKey, 'GET', '/v1/api_keys?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    const second = await as(shop.apiKey, 'GET', `/v1/api_keys?limit=1&starting_after=${first.body.data[0].id}`);
    expect(second.body.data[0].id).toBe(ids[1]);
    expectError(await as(shop.apiKey, 'GET', `/v1/api_keys?starting_after=${other.apiKeyId}`), 400, 'invalid_request', 'starting_after');
  });

  it('refuses an unknown scope, an empty or mixed list, a past expires_at, a bad expires_in: 400 invalid_request', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', scopes: ['payments:delete'] }, 'scopes'],
      [{ name: 'x', scopes: ['ledger:read'] }, 'scopes'],
      [{ name: 'x', scopes: ['payments'] }, 'scopes'],
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: ['*', 'payments:read'] }, 'scopes'],
      [{ name: 'x', scopes: 'payments:read' }, 'scopes'],
      [{ name: 'x' }, 'scopes'],
      [{ scopes: ['payments:read'] }, 'name'],
      [{ name: 'x', scopes: ['payments:read'], expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at'],
      [{ name: 'x', scopes: ['payments:read'], expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'x', scopes: ['payments:read'], unknown: 1 }, 'unknown'],
    ];
    for (const [body, param] of cases) expectError(await createKey(body), 400, 'invalid_request', param);
    const { id } = await restricted(['payments:read']);
    for (const expiresIn of [-1, 604_801, 1.5, '10']) expectError(await as(shop.apiKey, 'POST', `/v1/api_keys/${id}/roll`, { expires_in: expiresIn }), 400, 'invalid_request', 'expires_in');
  });

  it('scopes: GET needs read, the rest write (write includes read), a test helper write; a missing scope is 403 insufficient_scope naming it', async () => {
    const reader = await restricted(['payments:read']);
    const writer = await restricted(['payments:write']);
    const payment = await createPayment(service, shop);
    expect((await as(reader.secret, 'GET', `/v1/payments/${payment.id}`)).status).toBe(200);
    expect((await as(reader.secret, 'GET', '/v1/payments')).status).toBe(200);
    expectError(await as(reader.secret, 'POST', '/v1/payments', paymentBody(shop.merchant), { 'Idempotency-Key': idempotencyKey() }), 403, 'insufficient_scope', 'payments:write');
    expectError(await as(reader.secret, 'POST', `/v1/payments/${payment.id}/cancel`), 403, 'insufficient_scope', 'payments:write');
    expectError(await as(reader.secret, 'POST', `/v1/test_helpers/payments/${payment.id}/decline`), 403, 'insufficient_scope', 'payments:write');
    expectError(await as(reader.secret, 'GET', '/v1/refunds'), 403, 'insufficient_scope', 'refunds:read');
    expectError(await as(reader.secret, 'GET', '/v1/events'), 403, 'insufficient_scope', 'events:read');
    // Write includes read.
    expect((await as(writer.secret, 'GET', `/v1/payments/${payment.id}`)).status).toBe(200);
    const created = await as(writer.secret, 'POST', '/v1/payments', paymentBody(shop.merchant), { 'Idempotency-Key': idempotencyKey() });
    expect(created.status).toBe(201);
    expect((await as(writer.secret, 'POST', `/v1/test_helpers/payments/${created.body.id}/decline`)).status).toBe(200);
    // Only a ["*"] key manages keys and reads the audit trail.
    for (const [method, path] of [
      ['GET', '/v1/api_keys'],
      ['POST', '/v1/api_keys'],
      ['GET', `/v1/api_keys/${writer.id}`],
      ['POST', `/v1/api_keys/${writer.id}/roll`],
      ['POST', `/v1/api_keys/${writer.id}/revoke`],
      ['GET', '/v1/audit_events'],
    ] as const) {
      expectError(await as(writer.secret, method, path, method === 'POST' ? { name: 'escalate', scopes: ['*'] } : undefined), 403, 'insufficient_scope', '*');
    }
    expect((await as(shop.apiKey, 'GET', `/v1/api_keys/${writer.id}`)).body.status).toBe('active');
    // Authentication first: an unknown key is 401 whatever the route; a missing scope outranks a bad body.
    expectError(await as('rk_unknown000000000000000000000000', 'POST', '/v1/payments', {}), 401, 'authentication_required');
    expectError(await as(reader.secret, 'POST', '/v1/payments', { amount: -1 }, { 'Idempotency-Key': idempotencyKey() }), 403, 'insufficient_scope', 'payments:write');
  });

  it('an expired key is 401 and listed as expired', async () => {
    const soon = new Date(Date.now() + 5_000).toISOString();
    const key = await restricted(['payments:read'], { expires_at: soon });
    expect(key.body.expires_at).toBe(soon);
    expect((await as(key.secret, 'GET', '/v1/payments')).status).toBe(200);
    await sleep(Date.parse(soon) - Date.now() + 200);
    expectError(await as(key.secret, 'GET', '/v1/payments'), 401, 'authentication_required');
    expect((await as(shop.apiKey, 'GET', `/v1/api_keys/${key.id}`)).body.status).toBe('expired');
    expectError(await as(shop.apiKey, 'POST', `/v1/api_keys/${key.id}/roll`, {}), 409, 'invalid_status');
  });

  it('roll without overlap: a new key with the same name and scopes; the old one stops at once', async () => {
    const old = await restricted(['refunds:write', 'events:read']);
    const rolled = await as(shop.apiKey, 'POST', `/v1/api_keys/${old.id}/roll`);
    expect(rolled.status).toBe(201);
    secrets.push(rolled.body.api_key);
    expect(rolled.body).toMatchObject({ object: 'api_key', name: old.body.name, scopes: ['refunds:write', 'events:read'], status: 'active', api_key: expect.stringMatching(/^rk_/) });
    expect(rolled.body.id).not.toBe(old.id);
    expect(rolled.body.api_key).not.toBe(old.secret);
    // Every gateway refuses the old key within a second.
    await sleep(1_000);
    for (const gateway of gateways()) expectError(await gateway('GET', '/v1/events', { key: old.secret }), 401, 'authentication_required');
    expect((await as(rolled.body.api_key, 'GET', '/v1/events')).status).toBe(200);
    const before = await as(shop.apiKey, 'GET', `/v1/api_keys/${old.id}`);
    expect(before.body.status).toBe('expired');
  });

  it('create and roll honour Idempotency-Key as every create does: the replay answers the same key, and no second key exists', async () => {
    const headers = { 'Idempotency-Key': idempotencyKey() };
    const body = { name: 'Retried create', scopes: ['payments:read'] };
    const first = await as(shop.apiKey, 'POST', '/v1/api_keys', body, headers);
    const replay = await as(shop.apiKey, 'POST', '/v1/api_keys', body, headers);
    secrets.push(first.body.api_key);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // The stored answer opens only with the caller's own secret: another key of the integrator gets no secret.
    const other = await as(shop.apiKey, 'POST', '/v1/api_keys', { name: 'Another full key', scopes: ['*'] });
    secrets.push(other.body.api_key);
    const reused = await as(other.body.api_key, 'POST', '/v1/api_keys', body, headers);
    expectError(reused, 409, 'idempotency_key_reused');
    // Not the original response: no Idempotent-Replayed header.
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    const rollHeaders = { 'Idempotency-Key': idempotencyKey() };
    const rolled = await as(shop.apiKey, 'POST', `/v1/api_keys/${first.body.id}/roll`, { expires_in: 60 }, rollHeaders);
    const rolledAgain = await as(shop.apiKey, 'POST', `/v1/api_keys/${first.body.id}/roll`, { expires_in: 60 }, rollHeaders);
    secrets.push(rolled.body.api_key);
    expect(rolled.status).toBe(201);
    expect(rolledAgain.body).toEqual(rolled.body);
    const listed = (await as(shop.apiKey, 'GET', '/v1/api_keys?limit=100')).body.data as { name: string }[];
    expect(listed.filter((k) => k.name === 'Retried create')).toHaveLength(2);
  });

  it('a rolled key keeps working exactly until its overlap ends, under parallel requests across the boundary', async () => {
    const old = await restricted(['events:read']);
    // Every gateway has the old key in its cache before the roll.
    for (const gateway of gateways()) expect((await gateway('GET', '/v1/events?limit=1', { key: old.secret })).status).toBe(200);
    // An overlap long enough for several answers on each side of its end on a loaded machine.
    const rolled = await as(shop.apiKey, 'POST', `/v1/api_keys/${old.id}/roll`, { expires_in: OVERLAP_SECONDS });
    expect(rolled.status).toBe(201);
    secrets.push(rolled.body.api_key);
    // The old key's expiry is the roll's instant plus the overlap (checked after the run).
    const overlapEnds = Date.parse(rolled.body.created_at) + OVERLAP_SECONDS * 1000;
    const stopAt = overlapEnds + 8_000;
    const results: { sent: number; received: number; status: number; key: 'old' | 'new' }[] = [];
    const clients = gateways();
    const worker = async (index: number) => {
      for (let turn = 0; Date.now() < stopAt; turn++) {
        const which = (index + turn) % 4 === 0 ? 'new' : 'old';
        const sent = Date.now();
        const response = await clients[(index + turn) % clients.length]!('GET', '/v1/events?limit=1', { key: which === 'old' ? old.secret : rolled.body.api_key });
        results.push({ sent, received: Date.now(), status: response.status, key: which });
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, i) => worker(i)));
    const olds = results.filter((r) => r.key === 'old');
    const wrong = [
      ...olds.filter((r) => r.received < overlapEnds && r.status !== 200).map((r) => ({ ...r, expected: 200 })),
      ...olds.filter((r) => r.sent >= overlapEnds && r.status !== 401).map((r) => ({ ...r, expected: 401 })),
      ...results.filter((r) => r.key === 'new' && r.status !== 200).map((r) => ({ ...r, expected: 200 })),
    ];
    expect(wrong).toEqual([]);
    // Requests on both sides of the boundary, each answered as its instant says.
    expect(olds.filter((r) => r.received < overlapEnds).length).toBeGreaterThan(3);
    expect(olds.filter((r) => r.sent >= overlapEnds).length).toBeGreaterThan(3);
    const after = (await as(shop.apiKey, 'GET', `/v1/api_keys/${old.id}`)).body;
    expect(after).toMatchObject({ status: 'expired', expires_at: new Date(overlapEnds).toISOString() });
  }, 180_000);

  it('a key is rolled once: a key in its overlap answers another roll, sequential or parallel, 409 invalid_status (a retry of the same roll replays it)', async () => {
    const sequential = await restricted(['events:read']);
    const rollHeaders = { 'Idempotency-Key': idempotencyKey() };
    const first = await as(shop.apiKey, 'POST', `/v1/api_keys/${sequential.id}/roll`, { expires_in: 3600 }, rollHeaders);
    expect(first.status).toBe(201);
    secrets.push(first.body.api_key);
    // In its overlap the old key is active, with the overlap's end as its expires_at.
    expect((await as(shop.apiKey, 'GET', `/v1/api_keys/${sequential.id}`)).body).toMatchObject({ status: 'active', expires_at: expect.any(String) });
    expectError(await as(shop.apiKey, 'POST', `/v1/api_keys/${sequential.id}/roll`, { expires_in: 3600 }), 409, 'invalid_status');
    const replay = await as(shop.apiKey, 'POST', `/v1/api_keys/${sequential.id}/roll`, { expires_in: 3600 }, rollHeaders);
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 201, body: first.body });
    // The successor can be rolled in its turn.
    const next = await as(shop.apiKey, 'POST', `/v1/api_keys/${first.body.id}/roll`, { expires_in: 60 });
    expect(next.status).toBe(201);
    secrets.push(next.body.api_key);

    const parallel = await restricted(['events:read']);
    const answers = await Promise.all(Array.from({ length: 5 }, () => as(shop.apiKey, 'POST', `/v1/api_keys/${parallel.id}/roll`, { expires_in: 60 })));
    for (const answer of answers) if (typeof answer.body?.api_key === 'string') secrets.push(answer.body.api_key);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) expectError(answer, 409, 'invalid_status');
    const audit = await as(shop.apiKey, 'GET', '/v1/audit_events?action=api_key.rolled&limit=100');
    const successor = answers.find((a) => a.status === 201)!.body.id;
    const named = (audit.body.data as { target: { id: string } }[]).map((e) => e.target.id);
    expect(named).toContain(successor);
    const keys = (await as(shop.apiKey, 'GET', '/v1/api_keys?limit=100')).body.data as { id: string; name: string; created_at: string }[];
    expect(keys.filter((k) => k.name === parallel.body.name && Date.parse(k.created_at) > Date.parse(parallel.body.created_at)).map((k) => k.id)).toEqual([successor]);
  });

  it('rolling a key with an expires_at: the successor keeps it, and the overlap ends there when it falls within it', async () => {
    const expiresAt = new Date(Date.now() + 30 * 60_000).toISOString();
    const temporary = await restricted(['events:read'], { expires_at: expiresAt });
    const rolled = await as(shop.apiKey, 'POST', `/v1/api_keys/${temporary.id}/roll`, { expires_in: 3600 });
    expect(rolled.status).toBe(201);
    secrets.push(rolled.body.api_key);
    expect(rolled.body.expires_at).toBe(expiresAt);
    expect((await as(shop.apiKey, 'GET', `/v1/api_keys/${rolled.body.id}`)).body.expires_at).toBe(expiresAt);
    expect((await as(shop.apiKey, 'GET', `/v1/api_keys/${temporary.id}`)).body).toMatchObject({ status: 'active', expires_at: expiresAt });
    // An overlap shorter than the time left: the old key stops when it ends, the successor at the original expiry.
    const later = await restricted(['events:read'], { expires_at: expiresAt });
    const short = await as(shop.apiKey, 'POST', `/v1/api_keys/${later.id}/roll`, { expires_in: 60 });
    expect(short.status).toBe(201);
    secrets.push(short.body.api_key);
    expect(short.body.expires_at).toBe(expiresAt);
    expect(Date.parse((await as(shop.apiKey, 'GET', `/v1/api_keys/${later.id}`)).body.expires_at)).toBe(Date.parse(short.body.created_at) + 60_000);
  });

  it('revoke: the key, status revoked; 401 from every gateway within a second', async () => {
    const key = await restricted(['events:read']);
    // Two gateways at least (distributed: with E2E_INSTANCES=2), each having cached the key.
    if (!DISTRIBUTED) expect(gateways()).toHaveLength(2);
    for (const gateway of gateways()) expect((await gateway('GET', '/v1/events?limit=1', { key: key.secret })).status).toBe(200);
    const revoked = await as(shop.apiKey, 'POST', `/v1/api_keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, object: 'api_key', status: 'revoked' });
    expect(revoked.body).not.toHaveProperty('api_key');
    await sleep(1_000);
    for (const gateway of gateways()) expectError(await gateway('GET', '/v1/events?limit=1', { key: key.secret }), 401, 'authentication_required');
    expectError(await as(shop.apiKey, 'POST', `/v1/api_keys/${key.id}/roll`, {}), 409, 'invalid_status');
    // The admin API's revocation and the integrator's agree.
    const adminIssued = await service.admin('POST', `/admin/v1/integrators/${shop.id}/api_keys`);
    secrets.push(adminIssued.body.api_key);
    expect((await as(shop.apiKey, 'POST', `/v1/api_keys/${adminIssued.body.id}/revoke`)).body.status).toBe('revoked');
    expectError(await as(adminIssued.body.api_key, 'GET', '/v1/events'), 401, 'authentication_required');
  });

  it('last_used_at follows the key\'s use (at most 60 s behind), without a write per request', async () => {
    const key = await restricted(['events:read']);
    expect(key.body.last_used_at).toBeNull();
    const usedFrom = Date.now();
    for (let i = 0; i < 5; i++) expect((await as(key.secret, 'GET', '/v1/events?limit=1')).status).toBe(200);
    const usedUntil = Date.now();
    let lastUsed: string | null = null;
    for (const deadline = Date.now() + 60_000; lastUsed === null && Date.now() < deadline; await sleep(500)) {
      lastUsed = (await as(shop.apiKey, 'GET', `/v1/api_keys/${key.id}`)).body.last_used_at;
    }
    expect(lastUsed).not.toBeNull();
    expect(Date.parse(lastUsed!)).toBeGreaterThanOrEqual(usedFrom - 5);
    expect(Date.parse(lastUsed!)).toBeLessThanOrEqual(usedUntil + 5);
  }, 90_000);

  it('a finance key\'s last_used_at follows its use too (at most 60 s behind)', async () => {
    const created = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Books' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(201);
    secrets.push(created.body.api_key);
    const usedFrom = Date.now();
    for (let i = 0; i < 3; i++) expect((await service.http('GET', '/admin/v1/ledger/trial_balance', { key: created.body.api_key })).status).toBe(200);
    const usedUntil = Date.now();
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    let lastUsed: Date | null = null;
    try {
      for (const deadline = Date.now() + 60_000; lastUsed === null && Date.now() < deadline; await sleep(500)) {
        lastUsed = (await db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM gw_api_keys WHERE id = $1', [created.body.id])).rows[0]!.last_used_at;
      }
    } finally {
      await db.end();
    }
    expect(lastUsed).not.toBeNull();
    expect(lastUsed!.getTime()).toBeGreaterThanOrEqual(usedFrom - 5);
    expect(lastUsed!.getTime()).toBeLessThanOrEqual(usedUntil + 5);
    // The revocation's answer shows it.
    const revoked = await service.admin('POST', `/admin/v1/api_keys/${created.body.id}/revoke`);
    expect(revoked.body).toMatchObject({ role: 'finance', status: 'revoked', last_used_at: lastUsed!.toISOString() });
  }, 90_000);

  it('the Authorization scheme is case-insensitive (RFC 9110 11.1): bearer, BEARER and Bearer alike, for an integrator, the admin and a finance key', async () => {
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Scheme' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(finance.status).toBe(201);
    secrets.push(finance.body.api_key);
    // The admin route answers 404 to the admin key (an unknown key to revoke), 401 to anyone else.
    const calls: [string, string, string, number][] = [
      [shop.apiKey, 'GET', '/v1/events?limit=1', 200],
      [service.adminKey, 'POST', '/admin/v1/api_keys/key_00000000000000000000/revoke', 404],
      [service.adminKey, 'GET', '/admin/v1/ledger/trial_balance', 200],
      [finance.body.api_key, 'GET', '/admin/v1/ledger/trial_balance', 200],
    ];
    const answers: { scheme: string; path: string; status: number; expected: number }[] = [];
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      for (const [secret, method, path, expected] of calls) {
        const response = await service.http(method, path, { headers: { Authorization: `${scheme} ${secret}` } });
        answers.push({ scheme, path, status: response.status, expected });
      }
    }
    expect(answers.filter((a) => a.status !== a.expected)).toEqual([]);
    // A create retried under another spelling of the scheme is the same caller's retry: it replays.
    const headers = { 'Idempotency-Key': idempotencyKey(), 'Content-Type': 'application/json' };
    const body = JSON.stringify({ name: 'Scheme retry', scopes: ['events:read'] });
    const first = await service.http('POST', '/v1/api_keys', { rawBody: body, headers: { ...headers, Authorization: `bearer ${shop.apiKey}` } });
    const again = await service.http('POST', '/v1/api_keys', { rawBody: body, headers: { ...headers, Authorization: `Bearer ${shop.apiKey}` } });
    secrets.push(first.body.api_key);
    expect(first.status).toBe(201);
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), body: again.body }).toEqual({ status: 201, replayed: 'true', body: first.body });
    // Another scheme is still 401.
    expectError(await service.http('GET', '/v1/events', { headers: { Authorization: `Basic ${shop.apiKey}` } }), 401, 'authentication_required');
  });

  it('authentication, then scope, then the body: a body that is not JSON, or cannot be read, is 401 or 403 to a caller without the right key', async () => {
    const reader = await restricted(['payments:read']);
    const revoked = await restricted(['payments:write']);
    expect((await as(shop.apiKey, 'POST', `/v1/api_keys/${revoked.id}/revoke`)).status).toBe(200);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Body order' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    secrets.push(finance.body.api_key);
    const JSON_TYPE = 'application/json';
    const bodies: [string, string, Record<string, string>][] = [
      ['not JSON', 'nope', { 'Content-Type': JSON_TYPE }],
      ['a key named twice', '{"amount":1,"amount":2}', { 'Content-Type': JSON_TYPE }],
      ['nested too deep', `${'['.repeat(70)}${']'.repeat(70)}`, { 'Content-Type': JSON_TYPE }],
      ['a NUL in a string', '{"description":"a\\u0000b"}', { 'Content-Type': JSON_TYPE }],
      ['__proto__', '{"__proto__":{"x":1}}', { 'Content-Type': JSON_TYPE }],
      ['text/plain', 'amount=1', { 'Content-Type': 'text/plain' }],
      ['an invalid media type', '{}', { 'Content-Type': 'nope' }],
      ['no media type', '{}', { 'Content-Type': '' }],
      ['XML', '<a/>', { 'Content-Type': 'application/xml' }],
      ['a charset other than UTF-8', '{}', { 'Content-Type': 'application/json; charset=latin1' }],
      ['a Content-Encoding', '{}', { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' }],
    ];
    const callers: [string, Record<string, string>, number, string][] = [
      ['no key', {}, 401, 'authentication_required'],
      ['an unknown key', { Authorization: 'Bearer rk_unknown000000000000000000000000' }, 401, 'authentication_required'],
      ['a revoked key', { Authorization: `Bearer ${revoked.secret}` }, 401, 'authentication_required'],
      ['a payments:read key', { Authorization: `Bearer ${reader.secret}` }, 403, 'insufficient_scope'],
    ];
    const wrong: unknown[] = [];
    for (const [what, rawBody, headers] of bodies) {
      for (const [caller, authorization, status, code] of callers) {
        const response = await service.http('POST', '/v1/payments', { rawBody, headers: { ...headers, ...authorization, 'Idempotency-Key': idempotencyKey() } });
        if (response.status !== status || response.body?.error?.code !== code) wrong.push({ what, caller, status: response.status, body: response.body });
      }
      // The admin API alike: no key 401, a finance key on a write 403.
      for (const [caller, authorization, status, code] of [
        ['no key', {}, 401, 'authentication_required'],
        ['a finance key', { Authorization: `Bearer ${finance.body.api_key}` }, 403, 'forbidden'],
      ] as const) {
        const response = await service.http('POST', '/admin/v1/connections', { rawBody, headers: { ...headers, ...authorization, 'Idempotency-Key': idempotencyKey() } });
        if (response.status !== status || response.body?.error?.code !== code) wrong.push({ what, caller, route: 'admin', status: response.status, body: response.body });
      }
      // The right key still gets the body's own error.
      const own = await service.http('POST', '/v1/payments', { rawBody, headers: { ...headers, Authorization: `Bearer ${shop.apiKey}`, 'Idempotency-Key': idempotencyKey() } });
      if (own.status < 400 || own.status >= 500 || own.body?.error?.code !== 'invalid_request') wrong.push({ what, caller: 'the right key', status: own.status, body: own.body });
    }
    expect(wrong).toEqual([]);
    // A body without any Content-Type (fetch always sends one): 401, the body unread and the connection closed.
    const bare = await new Promise<{ status: number; connection: string | undefined; code: string }>((resolve, reject) => {
      const request = httpRequest(`${service.url}/v1/payments`, { method: 'POST', headers: { 'Content-Length': '4' } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, code: JSON.parse(text).error.code }));
      });
      request.on('error', reject);
      request.end('nope');
    });
    expect(bare).toEqual({ status: 401, connection: 'close', code: 'authentication_required' });
    // A body over 1 MB is refused before it is read, whoever sends it (413).
    const large = await service.http('POST', '/v1/payments', { rawBody: `{"description":"${'x'.repeat(1_048_576)}"}` });
    expectError(large, 413, 'invalid_request');
  });

  it('the API description names the scope of every /v1 operation', async () => {
    const document = (await service.http('GET', '/openapi.json')).body;
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThan(40);
    for (const { path, method, operation } of operations) {
      const scope = operation['x-required-scope'];
      expect({ path, method, scope }).toEqual({ path, method, scope: expect.stringMatching(method === 'get' ? /^(\*|[a-z_]+:read)$/ : /^(\*|[a-z_]+:write)$/) });
      // The scope is named in `x-required-scope` only: Spectral's oas ruleset allows scopes in a security requirement of an OAuth 2 scheme only.
      expect(operation.security).toEqual([{ apiKey: [] }]);
    }
    expect(document.paths['/v1/payments'].post['x-required-scope']).toBe('payments:write');
    expect(document.paths['/v1/api_keys'].get['x-required-scope']).toBe('*');
  });

  it('stores no secret: only a SHA-256 of each', async () => {
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ row: string }>('SELECT row_to_json(k)::text AS row FROM gw_api_keys k');
      expect(rows.length).toBeGreaterThan(5);
      const text = rows.map((r) => r.row).join('\n');
      for (const secret of secrets) expect(text).not.toContain(secret);
      const idempotency = (await db.query<{ row: string }>('SELECT row_to_json(i)::text AS row FROM gw_idempotency_keys i')).rows.map((r) => r.row).join('\n');
      for (const secret of secrets) expect(idempotency).not.toContain(secret);
    } finally {
      await db.end();
    }
  });
});
