import canonicalize from 'canonicalize';
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { createCustomer, createIntegrator, createPayment, httpClient, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..', '..');
const GENESIS = '0'.repeat(64);

/**
 * Tamper-evident books (contract section 17), over HTTP: every hash recomputed here from what the API
 * answers (canonicalize, SHA-256), the head's Ed25519 signature checked with the listed key, and an
 * UPDATE, a DELETE and a swap made straight in PostgreSQL found, at their sequence, by verify, by
 * reconciliation and by the offline verifier (`npx payments ledger verify`).
 */
describe('the ledger hash chain', () => {
  let service: TestService;
  let shop: Integrator;
  let pool: Pool;
  let financeKey: string;
  let dir: string;

  beforeAll(async () => {
    service = await startTestService();
    pool = new Pool({ connectionString: service.databaseUrls?.['ledger'] ?? service.databaseUrl, max: 2 });
    dir = await mkdtemp(join(tmpdir(), 'pay-chain-'));
    shop = await createIntegrator(service);
    financeKey = (await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Books' } })).body.api_key;
    // Payments authorized together (the ledger writes them in batches), and a refund.
    const customer = await createCustomer(service, 10_000_000);
    const payments = await Promise.all(Array.from({ length: 12 }, (_, i) => createPayment(service, shop, { amount: 100_000 + i })));
    const authorized = await Promise.all(payments.map((p) => service.http('POST', `/v1/test_helpers/payments/${p.id}/authorize`, { key: shop.apiKey, body: { customer } })));
    expect(authorized.map((a) => a.body.status)).toEqual(payments.map(() => 'succeeded'));
    const refund = await service.http('POST', '/v1/refunds', { key: shop.apiKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: { payment: payments[0].id, amount: 1_000 } });
    expect(refund.body.status).toBe('succeeded');
  }, 180_000);
  afterAll(async () => {
    await pool.end();
    await service.stop();
  });

  /** The whole chain over HTTP, a small page at a time. */
  const readChain = async (key = service.adminKey) => {
    const entries: any[] = [];
    for (let from = 1; ; ) {
      const page = await service.http('GET', `/admin/v1/ledger/chain?from_sequence=${from}&limit=7`, { key });
      expect(page.status).toBe(200);
      entries.push(...page.body.data);
      if (!page.body.has_more) return entries;
      from = page.body.data[page.body.data.length - 1].sequence + 1;
    }
  };
  const hashOf = (prev: string, e: any) =>
    createHash('sha256')
      .update(`${prev}\n${canonicalize({ sequence: e.sequence, id: e.id, reference: e.reference, created_at: e.created_at, postings: e.postings })}`)
      .digest('hex');
  const exportTo = async (name: string) => {
    const response = await fetch(`${service.url}/admin/v1/ledger/chain/export`, { headers: { Authorization: `Bearer ${financeKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const file = join(dir, name);
    await writeFile(file, await response.text());
    return file;
  };
  const offline = async (file: string, ...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, [join(ROOT, 'tools', 'payments.js'), 'ledger', 'verify', file, ...args], { cwd: ROOT, timeout: 120_000 });
      return { code: 0, stdout };
    } catch (error: any) {
      return { code: error.code as number, stdout: String(error.stdout) };
    }
  };
  const verifyChain = async () => {
    const response = await service.admin('POST', '/admin/v1/ledger/chain/verify');
    expect(response.status).toBe(200);
    return response.body;
  };
  const reconciliation = async () => (await service.admin('POST', '/admin/v1/ledger/reconciliations')).body;

  it('chains every entry gapless; each hash recomputes from what the API answers; postings as /ledger/entries answers them', async () => {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries');
    const chain = await readChain(financeKey);
    expect(chain.map((e) => e.sequence)).toEqual(Array.from({ length: rows[0]!.n }, (_, i) => i + 1));
    let prev = GENESIS;
    for (const entry of chain) {
      expect(Object.keys(entry).sort()).toEqual(['created_at', 'hash', 'id', 'postings', 'prev_hash', 'reference', 'sequence']);
      expect(entry.prev_hash).toBe(prev);
      expect(entry.hash).toBe(hashOf(prev, entry));
      prev = entry.hash;
    }
    // The postings in the order the entries' list answers them.
    for (const entry of chain.filter((e) => e.reference.startsWith('pay_') || e.reference.startsWith('re_'))) {
      const listed = (await service.admin('GET', `/admin/v1/ledger/entries?reference=${entry.reference}`)).body.data.find((e: any) => e.id === entry.id);
      expect(listed.postings).toEqual(entry.postings);
      expect(listed.created_at).toBe(entry.created_at);
    }
  });

  it('signs the head with a listed Ed25519 key; a finance key reads the chain but may not verify', async () => {
    const chain = await readChain();
    const head = (await service.http('GET', '/admin/v1/ledger/chain/head', { key: financeKey })).body;
    expect(head).toEqual({ object: 'ledger_head', sequence: chain.length, hash: chain[chain.length - 1].hash, signed_at: expect.any(String), key_id: expect.any(String), signature: expect.any(String) });
    const keys = (await service.http('GET', '/admin/v1/ledger/signing_keys', { key: financeKey })).body;
    expect(keys.object).toBe('list');
    const key = keys.data.find((k: any) => k.key_id === head.key_id);
    expect(key).toMatchObject({ algorithm: 'Ed25519', public_key: expect.stringContaining('-----BEGIN PUBLIC KEY-----') });
    const message = Buffer.from(`${head.sequence}.${head.hash}.${head.signed_at}`, 'utf8');
    expect(verify(null, message, createPublicKey(key.public_key), Buffer.from(head.signature, 'base64'))).toBe(true);
    expect(verify(null, Buffer.from(`${head.sequence}.${head.hash}.2000-01-01T00:00:00.000Z`), createPublicKey(key.public_key), Buffer.from(head.signature, 'base64'))).toBe(false);

    expect((await service.http('POST', '/admin/v1/ledger/chain/verify', { key: financeKey })).status).toBe(403);
    expect(await verifyChain()).toEqual({ object: 'chain_verification', status: 'valid', entries: chain.length, first_broken_sequence: null });
    expect((await reconciliation()).status).toBe('balanced');
  });

  it('exports NDJSON that the offline verifier accepts, with the key it carries or one kept apart', async () => {
    const chain = await readChain();
    const file = await exportTo('chain.ndjson');
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.slice(0, -1)).toEqual(chain);
    expect(lines[lines.length - 1]).toMatchObject({ object: 'ledger_head', sequence: chain.length, hash: chain[chain.length - 1].hash });
    expect(await offline(file)).toEqual({ code: 0, stdout: `verified ${chain.length} entries\n` });
    const keys = (await service.admin('GET', '/admin/v1/ledger/signing_keys')).body.data;
    const pem = join(dir, 'ledger-key.pem');
    await writeFile(pem, keys[0].public_key);
    expect((await offline(file, '--public-key', pem)).code).toBe(0);
    // Part of the chain: up to a sequence, signed there.
    const part = await fetch(`${service.url}/admin/v1/ledger/chain/export?to_sequence=3`, { headers: { Authorization: `Bearer ${service.adminKey}` } });
    const partLines = (await part.text()).trimEnd().split('\n');
    expect(partLines).toHaveLength(4);
    expect(JSON.parse(partLines[3]!)).toMatchObject({ sequence: 3, hash: chain[2].hash });
  });

  it('an UPDATE of one posting amount in PostgreSQL is found at its sequence by verify, reconciliation and the offline verifier', async () => {
    const chain = await readChain();
    const target = chain.find((e) => e.reference.startsWith('pay_') && e.sequence > 2)!;
    const change = (delta: number) =>
      pool.query('UPDATE ledger_postings SET amount = amount + $2 WHERE entry_id = $1 AND seq = 1', [target.id, delta]);
    await change(1);
    try {
      expect(await verifyChain()).toEqual({ object: 'chain_verification', status: 'broken', entries: target.sequence - 1, first_broken_sequence: target.sequence });
      const report = await reconciliation();
      expect(report.status).toBe('differences');
      expect(report.differences).toContainEqual(expect.objectContaining({ kind: 'broken_chain', sequence: target.sequence }));
      const offlineRun = await offline(await exportTo('updated.ndjson'));
      expect(offlineRun.code).toBe(1);
      expect(offlineRun.stdout).toContain(`sequence ${target.sequence}`);
    } finally {
      await change(-1);
    }
    expect((await verifyChain()).status).toBe('valid');
  });

  it('a reordered pair and a deleted entry are found at their sequence', async () => {
    const chain = await readChain();
    const [a, b] = [chain[3], chain[4]];
    const swap = async () => {
      await pool.query('UPDATE ledger_entries SET sequence = -sequence WHERE id = ANY($1)', [[a.id, b.id]]);
      await pool.query('UPDATE ledger_entries SET sequence = CASE id WHEN $1 THEN $3::bigint ELSE $4::bigint END WHERE id = ANY($2)', [a.id, [a.id, b.id], b.sequence, a.sequence]);
    };
    await swap();
    expect(await verifyChain()).toMatchObject({ status: 'broken', first_broken_sequence: a.sequence });
    const swapped = await offline(await exportTo('swapped.ndjson'));
    expect(swapped.code).toBe(1);
    expect(swapped.stdout).toContain(`sequence ${a.sequence}`);
    await pool.query('UPDATE ledger_entries SET sequence = -sequence WHERE id = ANY($1)', [[a.id, b.id]]);
    await pool.query('UPDATE ledger_entries SET sequence = CASE id WHEN $1 THEN $3::bigint ELSE $4::bigint END WHERE id = ANY($2)', [a.id, [a.id, b.id], a.sequence, b.sequence]);
    expect((await verifyChain()).status).toBe('valid');

    const gone = chain[5];
    await pool.query('DELETE FROM ledger_postings WHERE entry_id = $1', [gone.id]);
    await pool.query('DELETE FROM ledger_entries WHERE id = $1', [gone.id]);
    expect(await verifyChain()).toEqual({ object: 'chain_verification', status: 'broken', entries: gone.sequence - 1, first_broken_sequence: gone.sequence });
    expect((await reconciliation()).differences).toContainEqual(expect.objectContaining({ kind: 'broken_chain', sequence: gone.sequence }));
    const deleted = await offline(await exportTo('deleted.ndjson'));
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toContain(`sequence ${gone.sequence}`);
  });

  it('refuses bad query parameters with 400', async () => {
    for (const query of ['limit=0', 'limit=1001', 'from_sequence=0', 'from_sequence=x', 'other=1']) {
      const response = await service.admin('GET', `/admin/v1/ledger/chain?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: expect.any(String) });
    }
    expect((await service.admin('GET', '/admin/v1/ledger/chain/export?to_sequence=-1')).status).toBe(400);
    expect((await httpClient(service.url)('GET', '/admin/v1/ledger/chain')).status).toBe(401);
  });
});
