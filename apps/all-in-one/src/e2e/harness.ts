import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { createTestDatabase } from '@pay/testing';
import { startDistributedTopology } from '@pay/topology';
import { readConfig } from '../config';
import { startService } from '../service';
import { assertConforms, DocumentConformance } from './conformance';

/** The origin of hosted URLs in tests (PUBLIC_BASE_URL), the same in both topologies. */
export const PUBLIC_BASE_URL = 'https://pay.example.test';

/** `npm run test:distributed` runs the same suites against every app in its own process over Kafka. */
export const DISTRIBUTED = process.env['E2E_TOPOLOGY'] === 'distributed';

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (text as UTF-8, bytes unchanged), instead of JSON.stringify(body). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export type Client = (method: string, path: string, options?: RequestOptions) => Promise<Response>;

/**
 * Real HTTP with fetch: JSON in, JSON (or text) out. Given several origins (the gateways of a
 * topology with several instances), requests go to them in turn, as a load balancer spreads them.
 * Every answer of `/v1` and `/admin/v1` is checked against the OpenAPI document the service serves
 * (`conformance.ts`): an undeclared status, field or type fails the request that got it.
 */
export const httpClient = (baseUrl: string | readonly string[]): Client => {
  const origins = typeof baseUrl === 'string' ? [baseUrl] : baseUrl;
  if (origins.length === 0) throw new RangeError('httpClient needs an origin');
  let turn = 0;
  let conformance: Promise<DocumentConformance> | undefined;
  const documentOf = (origin: string) => (conformance ??= fetchConformance(origin));
  return async (method, path, { key, body, rawBody, headers = {} } = {}) => {
    const origin = origins[turn++ % origins.length]!;
    const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const send = () =>
      fetch(`${origin}${path}`, {
        method,
        headers: {
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(payload !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
        body: payload,
      });
    // A kept-alive connection the server closes as its idle timeout ends can take a request that is
    // already on its way (more likely when a busy machine delays both timers): a read is sent again
    // once, as an HTTP client may for a safe method (RFC 9110, 9.2.2). Writes never are.
    const response = await send().catch((error: unknown) => {
      if ((method === 'GET' || method === 'HEAD') && isConnectionReset(error)) return send();
      throw error;
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: an HTML page or an image */
    }
    if (DESCRIBED_PATH.test(path)) {
      assertConforms(await documentOf(origin), { method, path, status: response.status, contentType: response.headers.get('content-type'), headers: response.headers, body: parsed });
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
};

const DESCRIBED_PATH = /^\/(v1|admin\/v1)\//;

const isConnectionReset = (error: unknown): boolean => {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
};

/** The document the service serves, read once per client (on its first answer of a described route). */
async function fetchConformance(origin: string): Promise<DocumentConformance> {
  const response = await fetch(`${origin}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}: the answers cannot be checked against it`);
  return new DocumentConformance((await response.json()) as ConstructorParameters<typeof DocumentConformance>[0]);
}

export interface TestService {
  /** The (first) gateway's origin; `http` spreads requests over every gateway. */
  url: string;
  /**
   * The database holding the streams (es_events, es_parked_events) and the payments' tables: with a
   * database per service (E2E_DATABASE_PER_SERVICE), the payments app's; `databaseUrls` has each app's.
   */
  databaseUrl: string;
  /** Each app's database (all `databaseUrl` unless a database per service; `all-in-one` always). */
  databaseUrls?: Record<string, string>;
  /** A superuser's connection to the PostgreSQL server that holds the service's databases. */
  serverUrl: string;
  adminKey: string;
  http: Client;
  /** Calls the admin API with the admin key. */
  admin: Client;
  /**
   * Everything the service logged, when asked for with `captureLogs` (at the LOG_LEVEL of the
   * overrides); distributed: every instance's output.
   */
  logs(): string;
  /**
   * The origin of each process's HTTP listener by name: `all-in-one`, or every instance of the
   * distributed topology (`payments`, or `payments-0`, `payments-1` with several instances).
   */
  processUrls(): Record<string, string>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /** Keep the service's log lines for `logs()`. */
  captureLogs?: boolean;
}

/**
 * The all-in-one service as `npm start` runs it (same config reader, same composition), on a real
 * port and a fresh database of the run's PostgreSQL. Sandbox on; rate limit off unless asked; only
 * errors logged unless the overrides set LOG_LEVEL.
 */
export async function startTestService(overrides: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const databaseUrl = await createTestDatabase('e2e');
  const adminKey = `admin_${randomBase62(32)}`;
  const env = {
    PORT: '0',
    SANDBOX: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    PUBLIC_BASE_URL,
    DATA_DIR: await mkdtemp(join(tmpdir(), 'pay-e2e-')),
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: adminKey,
    ...overrides,
  };
  let logs = () => '';
  let running: { url: string; stop(): Promise<void> };
  let processUrls: () => Record<string, string>;
  let databaseUrls: Record<string, string> = { 'all-in-one': databaseUrl };
  let origins: string[];
  let serviceDatabaseUrl = databaseUrl;
  if (DISTRIBUTED) {
    const topology = await startDistributedTopology({ env, dataDir: env.DATA_DIR });
    const instances = Object.values(topology.instances).flat();
    logs = () => instances.map((instance) => instance.output()).join('');
    processUrls = () => Object.fromEntries(instances.map((instance) => [instance.name, instance.url]));
    databaseUrls = { ...topology.databaseUrls };
    serviceDatabaseUrl = topology.databaseUrls.payments;
    origins = topology.gatewayUrls;
    running = topology;
  } else {
    const lines: string[] = [];
    if (options.captureLogs) logs = () => lines.join('');
    running = await startService(readConfig(env), {
      ...(overrides['LOG_LEVEL'] ? {} : { logLevel: 'error' as const }),
      ...(options.captureLogs ? { logDestination: { write: (line: string) => void lines.push(line) } } : {}),
    });
    processUrls = () => ({ 'all-in-one': running.url });
    origins = [running.url];
  }
  const http = httpClient(origins);
  return {
    url: running.url,
    databaseUrl: serviceDatabaseUrl,
    databaseUrls,
    serverUrl: databaseUrl,
    adminKey,
    http,
    admin: (method, path, options = {}) => http(method, path, { key: adminKey, ...options }),
    logs,
    processUrls,
    stop: () => running.stop(),
  };
}

export interface Integrator {
  id: string;
  apiKey: string;
  apiKeyId: string;
  /** A merchant connection in DZD. */
  merchant: string;
}

export async function createIntegrator(service: TestService, currency = 'DZD'): Promise<Integrator> {
  const integrator = await service.admin('POST', '/admin/v1/integrators', { body: { name: 'Test shop' } });
  expect(integrator.status).toBe(201);
  const connection = await service.admin('POST', '/admin/v1/connections', {
    body: { integrator: integrator.body.id, kind: 'merchant', name: 'Test shop', currency },
  });
  expect(connection.status).toBe(201);
  return { id: integrator.body.id, apiKey: integrator.body.api_key, apiKeyId: integrator.body.api_key_id, merchant: connection.body.id };
}

/** A customer with `balance` in their account (none when 0). */
export async function createCustomer(service: TestService, balance: number, currency = 'DZD'): Promise<string> {
  const customer = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone: '+213555000111', pin: '1234', currency } });
  expect(customer.status).toBe(201);
  if (balance > 0) {
    const topup = await service.admin('POST', '/admin/v1/topups', { body: { account: customer.body.id, amount: balance, currency } });
    expect(topup.status).toBe(201);
  }
  return customer.body.id;
}

/** A cash point (admin API); a set-up that goes on without one fails later, far from its cause. */
export async function createCashPoint(service: TestService, body: { name: string; address: string } = { name: 'Point', address: '1 rue' }): Promise<string> {
  const point = await service.admin('POST', '/admin/v1/cash_points', { body });
  if (point.status !== 201) throw new Error(`creating a cash point answered ${point.status}: ${JSON.stringify(point.body)}`);
  return point.body.id;
}

let orderCounter = 0;
export const paymentBody = (merchant: string, overrides: Record<string, unknown> = {}) => ({
  amount: 1_250_000,
  currency: 'DZD',
  order_reference: `order-${++orderCounter}`,
  merchant_connection: merchant,
  return_url: 'https://shop.example/return',
  ...overrides,
});

let keyCounter = 0;
export const idempotencyKey = () => `key-${process.pid}-${++keyCounter}-${randomBase62(8)}`;

export async function createPayment(service: TestService, integrator: Integrator, overrides: Record<string, unknown> = {}): Promise<any> {
  const response = await service.http('POST', '/v1/payments', {
    key: integrator.apiKey,
    body: paymentBody(integrator.merchant, overrides),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(response.status).toBe(201);
  return response.body;
}

export const balanceOf = async (service: TestService, owner: string): Promise<number> => {
  const response = await service.admin('GET', `/admin/v1/balances/${owner}`);
  expect(response.status).toBe(200);
  return response.body.available;
};

export const expectBalancedTrialBalance = async (service: TestService): Promise<void> => {
  const { body } = await service.admin('GET', '/admin/v1/ledger/trial_balance');
  expect(body.object).toBe('trial_balance');
  for (const line of body.currencies) expect(line.total_debits).toBe(line.total_credits);
};
