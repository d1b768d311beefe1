import { createCustomer, createIntegrator, createPayment, idempotencyKey, type Integrator, type Response, type TestService } from './harness';
import { Receiver } from './receiver';

/**
 * An integrator with one real object of every kind, for the tests that are generated from the route
 * table (authorization matrix, fuzzer): they need an id for every path parameter and an owner whose
 * state can be compared before and after.
 */
export interface World {
  integrator: Integrator;
  /** Its integrator API key. */
  key: string;
  /** A second key of the integrator, revoked. */
  revokedKey: string;
  business: string;
  wholesaler: string;
  beneficiary: string;
  /** A customer with a balance (customers are the platform's, not the integrator's). */
  customer: string;
  endpoint: string;
  receiver: Receiver;
  /** The integrator's own ids, by the collection segment that precedes them in a path (`payments` in `/v1/payments/:id`). */
  ids: Record<string, string[]>;
  /** The integrator's own ids, by the name of the body or query parameter that takes one. */
  fields: Record<string, string>;
}

export interface WorldOptions {
  /** A cash point registered with the admin API (`cp_…`). */
  cashPoint: string;
  /** Also objects still open (pending payment, cash payment awaiting payment, …), on which an action would show. */
  open: boolean;
}

const expectStatus = (response: Response, status: number, what: string): any => {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** Builds a world over HTTP: the admin API for people and money, the integrator's key for the rest. */
export async function createWorld(service: TestService, { cashPoint, open }: WorldOptions): Promise<World> {
  const integrator = await createIntegrator(service);
  const key = integrator.apiKey;
  const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => service.http(method, path, { key, body, headers });
  const connection = async (kind: string) =>
    expectStatus(await service.admin('POST', '/admin/v1/connections', { body: { integrator: integrator.id, kind, name: `A ${kind}`, currency: 'DZD' } }), 201, kind).id as string;
  const business = await connection('business');
  const wholesaler = await connection('wholesaler');
  const beneficiary = expectStatus(await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies', currency: 'DZD' } }), 201, 'beneficiary').id as string;
  expectStatus(await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 50_000_000, currency: 'DZD' } }), 201, 'top-up');
  const customer = await createCustomer(service, 50_000_000);
  const extraKey = expectStatus(await service.admin('POST', `/admin/v1/integrators/${integrator.id}/api_keys`), 201, 'second key');
  expectStatus(await service.admin('POST', `/admin/v1/api_keys/${extraKey.id}/revoke`), 200, 'revoke');
  // People of the hosted pages (their admin routes take their ids); logins are unique across worlds.
  const login = `world.${integrator.id.slice(-8).toLowerCase()}`;
  const person = { name: 'A person', password: 'world-password-1' };
  const businessUser = expectStatus(await service.admin('POST', '/admin/v1/business_users', { body: { ...person, business, login: `${login}.approver` } }), 201, 'business user').id as string;
  const agent = expectStatus(await service.admin('POST', '/admin/v1/agents', { body: { ...person, cash_point: cashPoint, login: `${login}.agent` } }), 201, 'agent').id as string;

  const receiver = await new Receiver().start();
  const endpoint = expectStatus(await as('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] }), 201, 'webhook endpoint').id as string;

  // Pay: a succeeded payment, partly refunded.
  const paid = await createPayment(service, integrator, { amount: 2_000_000 });
  expectStatus(await as('POST', `/v1/test_helpers/payments/${paid.id}/authorize`, { customer }), 200, 'authorize');
  const refund = expectStatus(await as('POST', '/v1/refunds', { payment: paid.id, amount: 100_000 }, { 'Idempotency-Key': idempotencyKey() }), 201, 'refund').id as string;
  // Cash checkout: paid at the cash point.
  const cashBody = { amount: 300_000, currency: 'DZD', order_reference: 'world-cash', merchant_connection: integrator.merchant };
  const cashPaid = expectStatus(await as('POST', '/v1/cash_payments', cashBody), 201, 'cash payment').id as string;
  expectStatus(await as('POST', `/v1/test_helpers/cash_payments/${cashPaid}/pay`, { cash_point: cashPoint, amount: 300_000 }), 200, 'cash pay');
  // Supplier payment: approved.
  const supplierBody = () => ({ payer_connection: business, beneficiary, amount: 400_000, currency: 'DZD', invoice_reference: `INV-${idempotencyKey()}`, description: 'world' });
  const supplierPaid = expectStatus(await as('POST', '/v1/supplier_payments', supplierBody()), 201, 'supplier payment').id as string;
  expectStatus(await as('POST', `/v1/test_helpers/supplier_payments/${supplierPaid}/approve`), 200, 'approve');
  // Collection: handed over, deposited, settled.
  const collectionBody = () => ({ amount: 250_000, currency: 'DZD', order_reference: 'world-collection', beneficiary_connection: wholesaler });
  const settled = expectStatus(await as('POST', '/v1/collections', collectionBody()), 201, 'collection').id as string;
  expectStatus(await as('POST', `/v1/test_helpers/collections/${settled}/confirm_handover`), 200, 'handover');
  expectStatus(await as('POST', `/v1/test_helpers/collections/${settled}/validate_deposit`, { amount_received: 250_000 }), 200, 'deposit');

  // Payouts: a bank account of the merchant, a canceled payout (a pending one too when open), and an empty batch (TND: no world pays out in it, so no world's payout moves).
  const bankAccount = expectStatus(
    await as('POST', '/v1/bank_accounts', { connection: integrator.merchant, account_holder: 'World SARL', iban: 'DZ580002100001113000000570' }, { 'Idempotency-Key': idempotencyKey() }),
    201,
    'bank account',
  ).id as string;
  const payout = expectStatus(
    await as('POST', '/v1/payouts', { connection: integrator.merchant, bank_account: bankAccount, amount: 100_000, currency: 'DZD' }, { 'Idempotency-Key': idempotencyKey() }),
    201,
    'payout',
  ).id as string;
  expectStatus(await as('POST', `/v1/payouts/${payout}/cancel`), 200, 'cancel payout');
  const payoutBatch = expectStatus(await service.admin('POST', '/admin/v1/payout_batches', { body: { currency: 'TND' }, headers: { 'Idempotency-Key': idempotencyKey() } }), 201, 'payout batch').id as string;
  const ids: Record<string, string[]> = {
    payments: [paid.id],
    bank_accounts: [bankAccount],
    payouts: [payout],
    payout_batches: [payoutBatch],
    // The console's batch file (`/console/finance/payouts/batches/:id/file`).
    batches: [payoutBatch],
    cash_payments: [cashPaid],
    supplier_payments: [supplierPaid],
    collections: [settled],
  };
  if (open) {
    ids['payments']!.push((await createPayment(service, integrator, { amount: 500_000 })).id);
    ids['cash_payments']!.push(expectStatus(await as('POST', '/v1/cash_payments', cashBody), 201, 'open cash payment').id);
    ids['supplier_payments']!.push(expectStatus(await as('POST', '/v1/supplier_payments', supplierBody()), 201, 'open supplier payment').id);
    const awaiting = expectStatus(await as('POST', '/v1/collections', collectionBody()), 201, 'open collection').id as string;
    const collected = expectStatus(await as('POST', '/v1/collections', collectionBody()), 201, 'collected collection').id as string;
    expectStatus(await as('POST', `/v1/test_helpers/collections/${collected}/confirm_handover`), 200, 'handover');
    ids['collections']!.push(awaiting, collected);
    const pendingPayout = { connection: integrator.merchant, bank_account: bankAccount, amount: 100_000, currency: 'DZD' };
    ids['payouts']!.push(expectStatus(await as('POST', '/v1/payouts', pendingPayout, { 'Idempotency-Key': idempotencyKey() }), 201, 'open payout').id);
  }
  const events = expectStatus(await as('GET', '/v1/events?limit=100'), 200, 'events').data as { id: string }[];
  const transactions = expectStatus(await as('GET', `/v1/balance_transactions?connection=${integrator.merchant}`), 200, 'balance transactions').data as { id: string }[];
  Object.assign(ids, {
    refunds: [refund],
    beneficiaries: [beneficiary],
    balances: [integrator.merchant, business, wholesaler],
    balance_transactions: [transactions[0]!.id],
    webhook_endpoints: [endpoint],
    events: [events[0]!.id],
    integrators: [integrator.id],
    // A revoked key: rolling or revoking it again (the matrix's controls) leaves the world's own key working.
    api_keys: [extraKey.id],
    customers: [customer],
    business_users: [businessUser],
    agents: [agent],
    // Ledger accounts (admin statements) are named by their owner's id.
    accounts: [integrator.merchant],
    // The console's object pages open any id.
    objects: [paid.id, refund, events[0]!.id],
  });
  const fields: Record<string, string> = {
    merchant_connection: integrator.merchant,
    payer_connection: business,
    beneficiary,
    beneficiary_connection: wholesaler,
    connection: integrator.merchant,
    bank_account: bankAccount,
    payment: paid.id,
    object_id: paid.id,
    source: paid.id,
    starting_after: paid.id,
  };
  const world: World = { integrator, key, revokedKey: extraKey.api_key, business, wholesaler, beneficiary, customer, endpoint, receiver, ids, fields };
  await deliveriesSettled(service, world);
  return world;
}

/** Every id of the world's own objects (and its secrets): none may appear in another integrator's answers. */
export async function ownedIds(service: TestService, world: World): Promise<string[]> {
  const listed = async (path: string) => ((await service.http('GET', path, { key: world.key })).body.data as { id: string }[]).map((o) => o.id);
  const lists = await Promise.all(
    ['/v1/payments', '/v1/cash_payments', '/v1/supplier_payments', '/v1/collections', '/v1/refunds', '/v1/events', '/v1/webhook_endpoints', '/v1/payouts', '/v1/bank_accounts'].map((p) => listed(`${p}?limit=100`)),
  );
  const transactions = await Promise.all(world.ids['balances']!.map((c) => listed(`/v1/balance_transactions?connection=${c}&limit=100`)));
  const fixed = [world.integrator.id, world.integrator.apiKeyId, world.key, world.revokedKey, ...Object.values(world.fields), ...Object.values(world.ids).flat()];
  return [...new Set([...fixed, ...lists.flat(), ...transactions.flat()])];
}

/** Waits until every event of the world has been delivered to its endpoint (deliveries are asynchronous). */
export async function deliveriesSettled(service: TestService, world: World, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = (await service.http('GET', '/v1/events?limit=100', { key: world.key })).body.data as unknown[];
    const deliveries = await service.http('GET', `/v1/webhook_endpoints/${world.endpoint}/deliveries?limit=100`, { key: world.key });
    const data = (deliveries.body?.data ?? []) as { status: string }[];
    if (deliveries.status === 404) return; // deleted
    if (data.length >= events.length && data.every((d) => d.status === 'succeeded')) return;
    if (Date.now() > deadline) throw new Error(`deliveries of ${world.endpoint} did not settle: ${JSON.stringify(data)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface SnapshotOptions {
  /** Leave out the webhook endpoint and its deliveries (a fuzzer's accepted update may change them legitimately). */
  withoutEndpoint?: boolean;
}

/**
 * What the world's owner sees of its objects (each retrieved, every list, balances, balance
 * transactions, deliveries, handover codes), and the balances of its accounts in the ledger (admin
 * key): two snapshots are equal when nothing of the world changed.
 */
export async function snapshot(service: TestService, world: World, { withoutEndpoint = false }: SnapshotOptions = {}): Promise<Record<string, unknown>> {
  const { ids } = world;
  const reads: string[] = [];
  for (const segment of ['payments', 'cash_payments', 'supplier_payments', 'collections', 'refunds', 'payouts', 'bank_accounts', 'events', 'balance_transactions', 'balances']) {
    for (const id of ids[segment] ?? []) reads.push(`/v1/${segment}/${id}`);
  }
  for (const id of ids['collections'] ?? []) reads.push(`/v1/collections/${id}/handover_code`);
  for (const id of ids['events'] ?? []) reads.push(`/v1/events/${id}/deliveries`);
  reads.push(`/v1/beneficiaries/${world.beneficiary}?payer_connection=${world.business}`);
  for (const list of ['payments', 'cash_payments', 'supplier_payments', 'collections', 'refunds', 'payouts', 'bank_accounts', 'events']) reads.push(`/v1/${list}?limit=100`);
  for (const connection of ids['balances'] ?? []) reads.push(`/v1/balance_transactions?connection=${connection}&limit=100`);
  if (!withoutEndpoint) reads.push('/v1/webhook_endpoints?limit=100', `/v1/webhook_endpoints/${world.endpoint}`, `/v1/webhook_endpoints/${world.endpoint}/deliveries?limit=100`);
  const adminReads = [...(ids['balances'] ?? []), world.beneficiary].map((owner) => `/admin/v1/balances/${owner}`);
  const answers = await Promise.all([
    ...reads.map(async (path) => [path, await service.http('GET', path, { key: world.key })] as const),
    ...adminReads.map(async (path) => [path, await service.admin('GET', path)] as const),
  ]);
  return Object.fromEntries(answers.map(([path, r]) => [path, { status: r.status, body: r.body }]));
}

/** The ledger as a whole: the trial balance (admin key). */
export async function trialBalance(service: TestService): Promise<unknown> {
  const response = await service.admin('GET', '/admin/v1/ledger/trial_balance');
  if (response.status !== 200) throw new Error(`trial balance: ${response.status}`);
  return response.body;
}

/** The paths whose answers differ between two snapshots (for a readable failure). */
export const changedPaths = (before: Record<string, unknown>, after: Record<string, unknown>): { path: string; before: unknown; after: unknown }[] =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((path) => JSON.stringify(before[path]) !== JSON.stringify(after[path]))
    .map((path) => ({ path, before: before[path], after: after[path] }));

/** A value for a body parameter, from its JSON Schema in the served OpenAPI document, when no better one is known. */
export function sampleFromSchema(schema: any): unknown {
  if (!schema || typeof schema !== 'object') return 'x';
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.oneOf)) return sampleFromSchema(schema.oneOf[schema.oneOf.length - 1]);
  if (schema.type === 'integer' || schema.type === 'number') return Math.max(schema.minimum ?? 1, 1);
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [sampleFromSchema(schema.items)];
  if (schema.type === 'object') return {};
  if (schema.format === 'date-time') return new Date(Date.now() - 3_600_000).toISOString();
  if (schema.format === 'date') return new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  if (schema.format === 'uri') return 'https://shop.example/return'; // return_url: an absolute https:// URL
  if (typeof schema.pattern === 'string' && /\[0-9\]\{4,6\}/.test(schema.pattern)) return '1234';
  if (typeof schema.pattern === 'string' && /0-9 \]\{4,20\}/.test(schema.pattern)) return '+213555000111';
  if (typeof schema.minLength === 'number' && schema.minLength > 1) return 'x'.repeat(schema.minLength);
  return 'sample';
}

/** The request body schema of an operation of the served OpenAPI document, resolved. */
export function bodySchema(document: any, method: string, openApiPath: string): any | undefined {
  const operation = document.paths?.[openApiPath]?.[method.toLowerCase()];
  const ref: string | undefined = operation?.requestBody?.content?.['application/json']?.schema?.$ref;
  return ref ? document.components.schemas[ref.split('/').pop()!] : undefined;
}

/** The query parameters of an operation of the served OpenAPI document. */
export function queryParameters(document: any, method: string, openApiPath: string): { name: string; required: boolean; schema: any }[] {
  const operation = document.paths?.[openApiPath]?.[method.toLowerCase()];
  return ((operation?.parameters ?? []) as any[]).filter((p) => p.in === 'query');
}
