import { mkdtemp } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import type { AppName } from '@pay/contracts';
import { randomBase62 } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';
import { parseInstances, START_ORDER, startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { idempotencyKey, PUBLIC_BASE_URL, type Response } from './harness';
import { Receiver } from './receiver';

/**
 * A rolling restart. Several instances (ROLLING_RESTART_INSTANCES, `2` or
 * `payments=2,…`; by default two of the gateway, payments, ledger and webhooks and one of the others,
 * what a 2-core machine carries), a database per service, steady mixed traffic (payments created and
 * authorized, webhooks delivered to a real endpoint, reads); each instance of each app is replaced one
 * at a time (SIGTERM, its exit, a new one, until ready). Then: no request failed except with a
 * retryable 503 (retried, with its Idempotency-Key, to success); nothing lost or doubled (each payment
 * succeeded with one ledger entry, the balances are the sums of their postings, the trial balance
 * balances); every payment.succeeded delivered under one event id.
 *
 * The client stands in for a load balancer: requests go round robin over the gateways, each on a new
 * connection; a connection that fails before any answer (refused by a gateway that is restarting, or
 * reset by one that stopped accepting while the connection waited in its accept queue) is tried on the
 * next gateway, as a balancer does for a request safe to send again: every request here is (creates
 * carry an Idempotency-Key, an authorization sent twice answers 409 the second time, reads are reads).
 */
const INSTANCES = parseInstances(process.env['ROLLING_RESTART_INSTANCES'] ?? 'gateway=2,payments=2,ledger=2,webhooks=2');
const WORKERS = 2;
const AMOUNT = 100_000;
const FUNDED = 1_000_000_000;
/** A request is retried (503, refused connection) for this long at most. */
const REQUEST_RETRY_MS_MAX = 60_000;
const RETRY_DELAY_MS = 200;
const SETTLED_WITHIN_MS = 120_000;
const PAUSE_BETWEEN_REPLACEMENTS_MS = 2_000;
const TRAFFIC_BEFORE_FIRST_REPLACEMENT_MS = 3_000;
/** A connection that failed before any answer came back. */
const CONNECTION_FAILED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

interface Outcome {
  /** Requests answered 503 service_unavailable, retried. */
  retryable503: number;
  /** Connections refused or reset before any answer (a gateway restarting), retried on the next gateway. */
  refused: number;
  /** Anything else: must stay empty. */
  failures: string[];
}

type Options = { key?: string; body?: unknown; headers?: Record<string, string> };

/** One request on a new connection (no keep-alive: a stopped gateway leaves no stale socket behind). */
const send = (origin: string, method: string, path: string, { key, body, headers = {} }: Options): Promise<Response> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      `${origin}${path}`,
      {
        method,
        agent: false,
        headers: {
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: new Headers(res.headers as Record<string, string>) });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

describe('rolling restart under steady traffic', () => {
  let topology: DistributedTopology;
  let receiver: Receiver;
  let ledgerDb: Pool;
  const adminKey = `admin_${randomBase62(32)}`;
  const outcome: Outcome = { retryable503: 0, refused: 0, failures: [] };
  let turn = 0;

  /** Through the "load balancer": round robin; a refused connection goes to the next gateway; a retryable 503 is retried. */
  const call = async (method: string, path: string, options: Options = {}, expected: number[] = [200, 201]): Promise<Response> => {
    const deadline = Date.now() + REQUEST_RETRY_MS_MAX;
    for (;;) {
      const urls = topology.gatewayUrls;
      const origin = urls[turn++ % urls.length]!;
      let response: Response;
      try {
        response = await send(origin, method, path, options);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (!CONNECTION_FAILED.has(code ?? '') || Date.now() > deadline) {
          outcome.failures.push(`${method} ${path} at ${origin}: ${code ?? String(error)}`);
          throw error;
        }
        outcome.refused += 1;
        continue;
      }
      if (expected.includes(response.status)) return response;
      if (response.status === 503 && response.body?.error?.code === 'service_unavailable' && Date.now() < deadline) {
        outcome.retryable503 += 1;
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
        continue;
      }
      outcome.failures.push(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response;
    }
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, { key: adminKey, body });

  beforeAll(async () => {
    receiver = await new Receiver().start();
    topology = await startDistributedTopology({
      env: { SANDBOX: 'true', RATE_LIMIT_PER_SECOND: '0', PUBLIC_BASE_URL, ADMIN_API_KEY: adminKey, DATABASE_URL: await createTestDatabase('rolling') },
      dataDir: await mkdtemp(join(tmpdir(), 'pay-rolling-')),
      instances: INSTANCES,
      databasePerService: true,
    });
    ledgerDb = new Pool({ connectionString: topology.databaseUrls.ledger, max: 2 });
  }, 1_200_000);
  afterAll(async () => {
    await ledgerDb?.end();
    await topology?.stop();
    await receiver?.stop();
  });

  it('replaces every instance of every app one at a time: no failure but retryable 503s, nothing lost or doubled, each event delivered under one id', async () => {
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Rolling shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body.id as string;
    const customer = (await admin('POST', '/admin/v1/customers', { name: 'C', phone: '+213555000777', pin: '1234', currency: 'DZD' })).body.id as string;
    await admin('POST', '/admin/v1/topups', { account: customer, amount: FUNDED, currency: 'DZD' });
    const key = integrator.api_key as string;
    await call('POST', '/v1/webhook_endpoints', { key, body: { url: receiver.url, enabled_events: ['payment.succeeded'] } });
    expect(outcome.failures).toEqual([]);

    const paid: string[] = [];
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const created = await call('POST', '/v1/payments', {
          key,
          headers: { 'Idempotency-Key': idempotencyKey() },
          body: { amount: AMOUNT, currency: 'DZD', order_reference: `roll-${w}-${i}`, merchant_connection: merchant, return_url: 'https://shop.example/r' },
        });
        if (created.status !== 201) continue;
        const id = created.body.id as string;
        // Authorize has no Idempotency-Key: retried after a 503 whose first attempt went through, it
        // answers that the payment is no longer pending (checked below: it succeeded, once).
        const authorized = await call('POST', `/v1/test_helpers/payments/${id}/authorize`, { key, body: { customer } }, [200, 409]);
        if (authorized.status === 409 && authorized.body?.error?.code !== 'invalid_status') outcome.failures.push(`authorize ${id}: ${JSON.stringify(authorized.body)}`);
        paid.push(id);
        await call('GET', `/v1/payments/${id}`, { key });
      }
    };
    const traffic = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    await new Promise((r) => setTimeout(r, TRAFFIC_BEFORE_FIRST_REPLACEMENT_MS));
    const replaced: string[] = [];
    try {
      for (const app of START_ORDER as readonly AppName[]) {
        for (let index = 0; index < topology.instances[app].length; index++) {
          const exit = await topology.replace(app, index);
          replaced.push(`${app}-${index}:${exit.code ?? exit.signal}`);
          await new Promise((r) => setTimeout(r, PAUSE_BETWEEN_REPLACEMENTS_MS));
        }
      }
    } finally {
      running = false;
      await traffic;
    }

    // Every instance stopped gracefully (exit 0) and came back.
    expect(replaced).toEqual(START_ORDER.flatMap((app) => topology.instances[app].map((_, i) => `${app}-${i}:0`)));
    expect(outcome.failures).toEqual([]);
    expect(paid.length).toBeGreaterThan(10);

    // Nothing lost or doubled: each payment succeeded, with one ledger entry.
    const deadline = Date.now() + SETTLED_WITHIN_MS;
    for (const id of paid) {
      let status = '';
      while (Date.now() < deadline && status !== 'succeeded') {
        status = (await call('GET', `/v1/payments/${id}`, { key })).body.status;
        if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 250));
      }
      expect({ id, status }).toEqual({ id, status: 'succeeded' });
    }
    const { rows: entries } = await ledgerDb.query<{ reference: string; entries: number }>(
      'SELECT reference, count(*)::int AS entries FROM ledger_entries WHERE reference = ANY($1) GROUP BY reference',
      [paid],
    );
    const entriesOf = new Map(entries.map((row) => [row.reference, row.entries]));
    expect(paid.filter((id) => entriesOf.get(id) !== 1).map((id) => ({ id, entries: entriesOf.get(id) ?? 0 }))).toEqual([]);
    const doubledOperations = await ledgerDb.query('SELECT operation_id FROM ledger_entries GROUP BY operation_id HAVING count(*) > 1');
    expect(doubledOperations.rows).toEqual([]);
    // Each account's balance is the sum of its postings (credits less debits), and the customer paid each payment once.
    const { rows: mismatched } = await ledgerDb.query(
      `SELECT a.id, a.balance::text, COALESCE(sum(CASE p.direction WHEN 'credit' THEN p.amount ELSE -p.amount END), 0)::text AS postings
         FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
        WHERE a.id = ANY($1) GROUP BY a.id, a.balance
       HAVING a.balance <> COALESCE(sum(CASE p.direction WHEN 'credit' THEN p.amount ELSE -p.amount END), 0)`,
      [[customer, merchant]],
    );
    expect(mismatched).toEqual([]);
    const available = (await admin('GET', `/admin/v1/balances/${customer}`)).body.available as number;
    expect(available).toBe(FUNDED - paid.length * AMOUNT);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);

    // Every payment.succeeded delivered, under one event id (the Webhook-Id header is the event's id).
    const eventsOf = () => {
      const byPayment = new Map<string, Set<string>>();
      const deliveries = new Map<string, number>();
      for (const received of receiver.received) {
        const body = JSON.parse(received.body);
        const eventId = String(received.headers['webhook-id']);
        expect(eventId).toBe(body.id);
        deliveries.set(eventId, (deliveries.get(eventId) ?? 0) + 1);
        const ids = byPayment.get(body.data.id) ?? new Set<string>();
        ids.add(eventId);
        byPayment.set(body.data.id, ids);
      }
      return { byPayment, deliveries };
    };
    // One read of what arrived per look (each look parses every delivery): not one per payment.
    const undelivered = () => {
      const { byPayment } = eventsOf();
      return paid.some((id) => !byPayment.has(id));
    };
    while (Date.now() < deadline && undelivered()) await new Promise((r) => setTimeout(r, 250));
    const { byPayment, deliveries } = eventsOf();
    expect(paid.filter((id) => !byPayment.has(id))).toEqual([]);
    expect([...byPayment.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);
    const paidIds = new Set(paid);
    expect([...byPayment.keys()].filter((id) => !paidIds.has(id))).toEqual([]);
    // At least once: a delivery answered 200 whose outcome a stopping dispatcher did not record is sent
    // again under the same id. Reported, not asserted, with how often the balancer retried.
    const redelivered = [...deliveries.values()].filter((n) => n > 1).length;
    process.stdout.write(
      `rolling restart (${START_ORDER.map((app) => `${app}=${INSTANCES[app]}`).join(',')}): ${paid.length} payments, ${deliveries.size} events, ` +
        `${redelivered} delivered more than once, ${outcome.refused} refused or reset connections rerouted, ${outcome.retryable503} retryable 503s retried\n`,
    );
  }, 1_800_000);
});
