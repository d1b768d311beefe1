import { randomUUID } from 'node:crypto';
import { call, expectCall, mapConcurrent } from './http';
import { runLoad, type LoadResult } from './load';
import { paymentBody, type Fixture } from './setup';

const jsonHeaders = (fixture: Fixture) => ({ Authorization: `Bearer ${fixture.apiKey}`, 'Content-Type': 'application/json' });

/**
 * POST /v1/payments at a fixed rate, each request with its own Idempotency-Key. autocannon paces a
 * connection by sending its whole per-second quota back to back at each tick, so one instance at 200/s
 * would hit the service with synchronized bursts; `instances` single-connection instances started
 * 1/instances of a second apart spread the same rate over the second instead.
 */
export async function createScenario(fixture: Fixture, { rate, durationS, instances }: { rate: number; durationS: number; instances: number }): Promise<LoadResult> {
  const run = randomUUID().slice(0, 8);
  let counter = 0;
  return runLoad(
    {
      url: fixture.baseUrl,
      connections: 1,
      connectionRate: rate / instances,
      duration: durationS,
      requests: [
        {
          method: 'POST',
          path: '/v1/payments',
          headers: jsonHeaders(fixture),
          body: paymentBody(fixture, `bench-create-${run}`),
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': `${run}-create-${counter++}` } }),
        },
      ],
    },
    { instances, staggerMs: 1000 / instances },
  );
}

/** `count` pending payments, created concurrently through the API (untimed: the authorize scenario's input). */
export async function createPendingPayments(fixture: Fixture, count: number, concurrency: number): Promise<string[]> {
  const run = randomUUID().slice(0, 8);
  return mapConcurrent(Array.from({ length: count }, (_, i) => i), concurrency, async (i) => {
    const response = await fetch(`${fixture.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { ...jsonHeaders(fixture), 'Idempotency-Key': `${run}-pending-${i}` },
      body: paymentBody(fixture, `bench-authorize-${run}-${i}`),
    });
    const body = (await response.json()) as { id?: string; status?: string };
    if (response.status !== 201 || body.status !== 'pending' || !body.id) throw new Error(`creating a pending payment: ${response.status} ${JSON.stringify(body)}`);
    return body.id;
  });
}

export interface AuthorizeResult {
  load: LoadResult;
  authorizationsPerSecond: number;
  /** Payment statuses read back with GET after the run. */
  statuses: Record<string, number>;
  /** The same, per payment id. */
  statusById: Map<string, string>;
  /** Date.now() when the load ended (before the snapshot and the GETs). */
  loadEndedAt: number;
  succeededPerSecond: number;
}

/**
 * Authorizes every payment in `paymentIds` once, at full speed over `connections` connections: each
 * request takes the next payment (and the next customer, round robin), and the run ends when the list
 * is exhausted (autocannon `amount` = the list's length). The payments are then read back: only
 * those really `succeeded` count as succeeded payments.
 */
export async function authorizeScenario<S>(
  fixture: Fixture,
  paymentIds: readonly string[],
  connections: number,
  /** Taken between the load and the GETs, so that the reads do not count as the load's. */
  snapshot: () => Promise<S>,
): Promise<AuthorizeResult & { statsAfterLoad: S }> {
  let next = 0;
  const load = await runLoad(
    {
      url: fixture.baseUrl,
      connections,
      amount: paymentIds.length,
      requests: [
        {
          method: 'POST',
          path: '/health',
          headers: jsonHeaders(fixture),
          setupRequest: (request) => {
            const index = next++;
            const paymentId = paymentIds[index];
            // Never reached with amount = the list's length; a harmless request if autocannon ever asks for one more.
            if (paymentId === undefined) return { ...request, method: 'GET', path: '/health', body: '' };
            const customer = fixture.customers[index % fixture.customers.length];
            return { ...request, path: `/v1/test_helpers/payments/${paymentId}/authorize`, body: JSON.stringify({ customer }) };
          },
        },
      ],
    },
    { hardLimitMs: 90_000 },
  );
  const loadEndedAt = Date.now();
  const statsAfterLoad = await snapshot();
  const statuses: Record<string, number> = {};
  const statusById = new Map<string, string>();
  await mapConcurrent(paymentIds, 32, async (id) => {
    const response = await call(fixture.baseUrl, 'GET', `/v1/payments/${id}`, { key: fixture.apiKey });
    const status = response.status === 200 ? String(response.body.status) : `http_${response.status}`;
    statuses[status] = (statuses[status] ?? 0) + 1;
    statusById.set(id, status);
  });
  return {
    load,
    statsAfterLoad,
    authorizationsPerSecond: load.ok / load.durationS,
    statuses,
    statusById,
    loadEndedAt,
    succeededPerSecond: (statuses['succeeded'] ?? 0) / load.durationS,
  };
}

/** The books must still balance after the load: a cheap sanity check that nothing went half-done. */
export async function trialBalance(fixture: Fixture, adminKey: string): Promise<{ balanced: boolean; detail: string }> {
  const { body } = await expectCall(fixture.baseUrl, 'GET', '/admin/v1/ledger/trial_balance', 200, { key: adminKey });
  const currencies = body.currencies as { currency: string; total_debits: number; total_credits: number }[];
  return {
    balanced: currencies.every((c) => c.total_debits === c.total_credits),
    detail: currencies.map((c) => `${c.currency} debits ${c.total_debits} credits ${c.total_credits}`).join('; '),
  };
}

/**
 * POST /v1/payments as fast as the service answers: `connections` connections, each sending its next
 * request as soon as the previous one is answered, for `durationS` seconds, each request with its own
 * Idempotency-Key. *requests/s* counts 2xx only (non-2xx are reported beside it).
 */
export async function createMaxScenario(fixture: Fixture, { connections, durationS }: { connections: number; durationS: number }): Promise<LoadResult & { okPerSecond: number }> {
  const run = randomUUID().slice(0, 8);
  let counter = 0;
  const load = await runLoad(
    {
      url: fixture.baseUrl,
      connections,
      duration: durationS,
      requests: [
        {
          method: 'POST',
          path: '/v1/payments',
          headers: jsonHeaders(fixture),
          body: paymentBody(fixture, `bench-create-max-${run}`),
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': `${run}-max-${counter++}` } }),
        },
      ],
    },
    {},
  );
  return { ...load, okPerSecond: load.ok / load.durationS };
}

/**
 * GET /v1/payments/{id} at a fixed rate, paced like createScenario, each request a payment drawn at
 * random from `paymentIds` (so that a large table is read across, not one hot row).
 */
export async function retrieveScenario(
  fixture: Fixture,
  paymentIds: readonly string[],
  { rate, durationS, instances }: { rate: number; durationS: number; instances: number },
): Promise<LoadResult> {
  return runLoad(
    {
      url: fixture.baseUrl,
      connections: 1,
      connectionRate: rate / instances,
      duration: durationS,
      requests: [
        {
          method: 'GET',
          path: '/health',
          headers: { Authorization: `Bearer ${fixture.apiKey}` },
          setupRequest: (request) => ({ ...request, path: `/v1/payments/${paymentIds[Math.floor(Math.random() * paymentIds.length)]!}` }),
        },
      ],
    },
    { instances, staggerMs: 1000 / instances },
  );
}
