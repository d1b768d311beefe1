import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';
import { startDistributedTopology, type DistributedTopology } from '@pay/topology';
import { httpClient, idempotencyKey, PUBLIC_BASE_URL, type Client } from './harness';

/**
 * Faults in the distributed topology: an app process crashes in the middle of a burst, and a Kafka
 * broker goes away during traffic (on Apache Kafka: one of three nodes SIGKILLed, then restarted on its
 * data; topics replicated 3 times, min.insync.replicas 2, producers acks=all). Money is checked from the ledger: nobody is debited twice, every
 * succeeded payment has exactly one entry, every other none, and the trial balance balances.
 */
/** A step cut by a crash is finished by then (the stalled-step sweep takes over after 5 s). */
const RESUMED_WITHIN_MS = 60_000;

/** How long a setup request or a read is retried while answered 503 (a rebalance holds an app's requests). */
const RETRY_503_FOR_MS = 60_000;

describe('distributed topology under faults', () => {
  let topology: DistributedTopology;
  let http: Client;
  const adminKey = `admin_${randomBase62(32)}`;
  /**
   * As an integrator does: a 503 service_unavailable is tried again (creates carry their Idempotency-Key).
   * With several instances per app (TOPOLOGY_INSTANCES), a killed instance or a new one makes its group
   * rebalance, which holds requests for seconds (longer on the mock cluster).
   */
  const retrying: Client = async (method, path, options = {}) => {
    const deadline = Date.now() + RETRY_503_FOR_MS;
    for (;;) {
      const response = await http(method, path, options);
      if (response.status !== 503 || Date.now() > deadline) return response;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const admin: Client = async (method, path, options = {}) => {
    const response = await retrying(method, path, { key: adminKey, ...options });
    expect({ method, path, status: response.status < 300 ? 'ok' : response.status, body: response.status < 300 ? undefined : response.body }).toEqual({ method, path, status: 'ok', body: undefined });
    return response;
  };

  const start = async (localBrokers: number) => {
    const databaseUrl = await createTestDatabase('faults');
    topology = await startDistributedTopology({
      env: { SANDBOX: 'true', RATE_LIMIT_PER_SECOND: '0', PUBLIC_BASE_URL, ADMIN_API_KEY: adminKey, DATABASE_URL: databaseUrl },
      dataDir: await mkdtemp(join(tmpdir(), 'pay-faults-')),
      localBrokers,
    });
    http = httpClient(topology.url);
  };
  afterEach(async () => {
    await topology?.stop();
  });

  const setUp = async (payments: number, amount: number) => {
    const integrator = (await admin('POST', '/admin/v1/integrators', { body: { name: 'Fault shop' } })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { body: { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' } })).body;
    const customer = (await admin('POST', '/admin/v1/customers', { body: { name: 'C', phone: '+213555000555', pin: '1234', currency: 'DZD' } })).body;
    await admin('POST', '/admin/v1/topups', { body: { account: customer.id, amount: amount * payments, currency: 'DZD' } });
    const created = [];
    for (let i = 0; i < payments; i++) {
      const response = await retrying('POST', '/v1/payments', {
        key: integrator.api_key,
        headers: { 'Idempotency-Key': idempotencyKey() },
        body: { amount, currency: 'DZD', order_reference: `fault-${i}`, merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
      });
      expect(response.status).toBe(201);
      created.push(response.body);
    }
    return { apiKey: integrator.api_key as string, merchant: merchant.id as string, customer: customer.id as string, payments: created };
  };

  /** Each payment's status beside its ledger entries. */
  const statusAndEntries = (setup: Awaited<ReturnType<typeof setUp>>) =>
    Promise.all(
      setup.payments.map(async (payment) => ({
        id: payment.id as string,
        status: (await retrying('GET', `/v1/payments/${payment.id}`, { key: setup.apiKey })).body.status as string,
        entries: ((await admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data as unknown[]).length,
      })),
    );

  /**
   * Every payment's status against its ledger entries: succeeded ⇔ exactly one entry; the balances add
   * up. A step the crash cut is finished by the restarted app (start-up recovery, then the stalled-step
   * sweep if the ledger could not be reached at once): waited for with a generous bound.
   */
  const expectConsistentMoney = async (setup: Awaited<ReturnType<typeof setUp>>, amount: number) => {
    const consistent = (rows: Awaited<ReturnType<typeof statusAndEntries>>) => rows.every((row) => row.entries === (row.status === 'succeeded' ? 1 : 0));
    let rows = await statusAndEntries(setup);
    for (const deadline = Date.now() + RESUMED_WITHIN_MS; !consistent(rows) && Date.now() < deadline; rows = await statusAndEntries(setup)) {
      await new Promise((r) => setTimeout(r, 500));
    }
    for (const row of rows) expect(row).toEqual({ ...row, entries: row.status === 'succeeded' ? 1 : 0 });
    const succeeded = rows.filter((row) => row.status === 'succeeded').length;
    const balance = (await admin('GET', `/admin/v1/balances/${setup.customer}`)).body.available;
    expect(balance).toBe(amount * (setup.payments.length - succeeded));
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
    return succeeded;
  };

  it('the payments process is killed mid-way through a burst of authorizations and restarted: every acknowledged payment ends final, nobody is debited twice', async () => {
    await start(1);
    const amount = 10_000;
    const setup = await setUp(30, amount);
    const authorizations = setup.payments.map((payment) =>
      http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: setup.apiKey, body: { customer: setup.customer } }).catch((error: unknown) => ({
        status: 0,
        body: String(error),
      })),
    );
    await new Promise((r) => setTimeout(r, 150));
    const exit = await topology.apps.payments.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    const answers = await Promise.all(authorizations);
    await topology.apps.payments.start();

    // Acknowledged authorizations are final and as answered.
    for (const [index, answer] of answers.entries()) {
      if (answer.status !== 200) continue;
      const current = (await retrying('GET', `/v1/payments/${setup.payments[index].id}`, { key: setup.apiKey })).body;
      expect(current.status).toBe(answer.body.status);
    }
    // Authorizations cut off by the crash are finished by the restarted process (start-up recovery).
    const succeeded = await expectConsistentMoney(setup, amount);
    expect(succeeded).toBeGreaterThanOrEqual(answers.filter((a) => a.status === 200 && a.body.status === 'succeeded').length);
  });

  it('the webhooks app is down: authorizations still answer their outcome, and their events are recorded once it is back', async () => {
    await start(1);
    const amount = 10_000;
    const setup = await setUp(4, amount);
    await topology.apps.webhooks.kill('SIGKILL');
    const answers = await Promise.all(
      setup.payments.map(async (payment) => {
        const started = Date.now();
        const response = await http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: setup.apiKey, body: { customer: setup.customer } });
        return { status: response.status, paymentStatus: response.body.status, ms: Date.now() - started };
      }),
    );
    // Answered within the caller's deadline (10 s) with the change that was made, not a 503 over it.
    for (const answer of answers) expect(answer).toEqual({ status: 200, paymentStatus: 'succeeded', ms: expect.any(Number) });
    for (const answer of answers) expect(answer.ms).toBeLessThan(9_000);
    expect(await expectConsistentMoney(setup, amount)).toBe(setup.payments.length);

    await topology.apps.webhooks.start();
    const recorded = async () => {
      const types = await Promise.all(
        setup.payments.map(async (payment) => (await retrying('GET', `/v1/events?object_id=${payment.id}`, { key: setup.apiKey })).body.data?.map((event: { type: string }) => event.type)),
      );
      return types.map((list) => (list ?? []).filter((type: string) => type === 'payment.succeeded').length);
    };
    let counts = await recorded();
    for (const deadline = Date.now() + RESUMED_WITHIN_MS; counts.some((count) => count !== 1) && Date.now() < deadline; counts = await recorded()) {
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(counts).toEqual(setup.payments.map(() => 1));
  });

  it('a Kafka broker goes down and comes back during traffic: nothing is lost', async () => {
    await start(3);
    const amount = 10_000;
    const setup = await setUp(24, amount);
    const authorize = (payment: { id: string }) =>
      http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: setup.apiKey, body: { customer: setup.customer } }).catch(
        (error: unknown) => ({ status: 0, body: String(error) }),
      );
    const firstHalf = setup.payments.slice(0, 12).map(authorize);
    await topology.kafka!.setBrokerDown(1);
    const duringOutage = setup.payments.slice(12).map(authorize);
    await new Promise((r) => setTimeout(r, 2_000));
    await topology.kafka!.setBrokerUp(1);
    const answers = await Promise.all([...firstHalf, ...duringOutage]);
    for (const answer of answers) expect([200, 409, 503]).toContain(answer.status);

    // Whatever failed during the outage is retried once the broker is back, as an integrator would.
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 200) continue;
      const retried = await retrying('POST', `/v1/test_helpers/payments/${setup.payments[index]!.id}/authorize`, { key: setup.apiKey, body: { customer: setup.customer } });
      expect([200, 409]).toContain(retried.status);
    }
    await new Promise((r) => setTimeout(r, 6_000)); // the stalled-authorization sweep runs after 5 s
    const succeeded = await expectConsistentMoney(setup, amount);
    expect(succeeded).toBe(setup.payments.length);
  });
});
