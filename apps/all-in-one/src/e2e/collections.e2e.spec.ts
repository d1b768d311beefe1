import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '@pay/kernel';
import { balanceOf, createIntegrator, DISTRIBUTED, expectBalancedTrialBalance, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';
import { CRASH_TEST_TIMEOUT_MS, startServiceProcess, type ServiceProcess } from './process-harness';
import { Receiver } from './receiver';

const DAY_MS = 24 * 3_600_000;
const AMOUNT = 1_250_000;
/** The default fee schedule charges settlements 250 basis points. */
const FEE = 31_250;
const NET = AMOUNT - FEE;

interface Wholesale extends Integrator {
  /** A wholesaler connection in DZD. */
  wholesaler: string;
}

describe('Marketplace cash reconciliation: collections, deposits and settlement over HTTP', () => {
  let service: TestService;
  let shop: Wholesale;
  const receivers: Receiver[] = [];

  const wholesale = async (currency = 'DZD'): Promise<Wholesale> => {
    const integrator = await createIntegrator(service, currency);
    const connection = await service.admin('POST', '/admin/v1/connections', { body: { integrator: integrator.id, kind: 'wholesaler', name: 'Grossiste Sétif', currency } });
    expect(connection.status).toBe(201);
    return { ...integrator, wholesaler: connection.body.id };
  };
  let orders = 0;
  const collectionBody = (owner: Wholesale, overrides: Record<string, unknown> = {}) => ({
    amount: AMOUNT,
    currency: 'DZD',
    order_reference: `delivery-${++orders}`,
    beneficiary_connection: owner.wholesaler,
    ...overrides,
  });
  const create = (owner: Wholesale, body: unknown, headers: Record<string, string> = {}) => service.http('POST', '/v1/collections', { key: owner.apiKey, body, headers });
  const createCollection = async (owner = shop, overrides: Record<string, unknown> = {}) => {
    const response = await create(owner, collectionBody(owner, overrides));
    expect(response.status).toBe(201);
    return response.body;
  };
  const retrieve = (id: string, owner = shop) => service.http('GET', `/v1/collections/${id}`, { key: owner.apiKey });
  const handover = (id: string, owner = shop) => service.http('POST', `/v1/test_helpers/collections/${id}/confirm_handover`, { key: owner.apiKey });
  const validate = (id: string, body: unknown, owner = shop) => service.http('POST', `/v1/test_helpers/collections/${id}/validate_deposit`, { key: owner.apiKey, body });
  const deposit = (id: string, amountReceived: number, owner = shop) => validate(id, { amount_received: amountReceived }, owner);
  const advance = (seconds: number) => service.http('POST', '/v1/test_helpers/clock/advance', { key: shop.apiKey, body: { seconds } });
  const collected = async (owner = shop, overrides: Record<string, unknown> = {}) => {
    const collection = await createCollection(owner, overrides);
    const response = await handover(collection.id, owner);
    expect(response.status).toBe(200);
    return response.body;
  };
  const entriesOf = async (reference: string) => (await service.admin('GET', `/admin/v1/ledger/entries?reference=${reference}`)).body.data;
  const kindsOf = async (reference: string) => (await entriesOf(reference)).map((e: { kind: string }) => e.kind);
  /** A ledger account's balance; an account not opened yet (a cash point's, before its first deposit) holds 0. */
  const balanceOrZero = async (account: string): Promise<number> => {
    const response = await service.admin('GET', `/admin/v1/balances/${encodeURIComponent(account)}`);
    if (response.status === 404) return 0;
    expect(response.status).toBe(200);
    return response.body.available;
  };
  const resolve = (id: string, body: unknown) => service.admin('POST', `/admin/v1/collections/${id}/resolve_deposit`, { body });
  const expectError = (response: { status: number; body: any }, status: number, code: string, param?: string) =>
    expect({ status: response.status, code: response.body.error?.code, ...(param ? { param: response.body.error?.param } : {}) }).toEqual({
      status,
      code,
      ...(param ? { param } : {}),
    });

  beforeAll(async () => {
    service = await startTestService();
    shop = await wholesale();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await service.stop();
  });

  it('confirm_handover while no cash point is registered: 409 invalid_status, the collection stays awaiting_collection', async () => {
    const collection = await createCollection();
    const response = await handover(collection.id);
    expectError(response, 409, 'invalid_status');
    expect(response.body.error.message).toMatch(/no cash point/);
    expect((await retrieve(collection.id)).body).toMatchObject({ status: 'awaiting_collection', collected_at: null, deposit: null });
  });

  describe('with cash points registered', () => {
    let firstPoint: string;

    beforeAll(async () => {
      const points = [];
      for (const name of ['Point Alger Centre', 'Point Oran']) {
        const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name, address: `${name}, Algérie` } });
        expect(point.status).toBe(201);
        points.push(point.body.id);
      }
      firstPoint = points[0];
    });

    /** The trial balance balances after every scenario. */
    afterEach(async () => {
      await expectBalancedTrialBalance(service);
    });

    const IN_TRANSIT = 'platform:cash_in_transit:DZD';
    const pointAccount = () => `${firstPoint}:DZD`;
    /** Cash in transit and at the first cash point (shared by every collection of this file: compare differences). */
    const custody = async () => ({ inTransit: await balanceOrZero(IN_TRANSIT), atPoint: await balanceOrZero(pointAccount()) });

    describe('create and retrieve', () => {
      it('create collection: 201, status awaiting_collection, collected_at, deposit and settlement null', async () => {
        const body = collectionBody(shop);
        const response = await create(shop, body);
        expect(response.status).toBe(201);
        expect(response.body).toEqual({
          id: expect.stringMatching(/^col_[0-9A-Za-z]{20,}$/),
          object: 'collection',
          status: 'awaiting_collection',
          amount: AMOUNT,
          currency: 'DZD',
          order_reference: body.order_reference,
          beneficiary_connection: shop.wholesaler,
          collected_at: null,
          deposit: null,
          settlement: null,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        });
        expect(response.headers.get('request-id')).toBeTruthy();
      });

      it('retrieve returns the same collection; an unknown id is 404 resource_not_found', async () => {
        const collection = await createCollection();
        const retrieved = await retrieve(collection.id);
        expect(retrieved.status).toBe(200);
        expect(retrieved.body).toEqual(collection);
        expectError(await retrieve('col_doesnotexist000000000000'), 404, 'resource_not_found');
        expectError(await handover('col_doesnotexist000000000000'), 404, 'resource_not_found');
        expectError(await deposit('col_doesnotexist000000000000', AMOUNT), 404, 'resource_not_found');
      });

      it("another integrator's collection is 404 on retrieve and on both helpers, and is not changed", async () => {
        const collection = await createCollection();
        const other = await wholesale();
        expectError(await retrieve(collection.id, other), 404, 'resource_not_found');
        expectError(await handover(collection.id, other), 404, 'resource_not_found');
        expectError(await deposit(collection.id, AMOUNT, other), 404, 'resource_not_found');
        expect((await retrieve(collection.id)).body.status).toBe('awaiting_collection');
      });

      it('without a valid API key: 401 authentication_required', async () => {
        const response = await service.http('POST', '/v1/collections', { body: collectionBody(shop) });
        expectError(response, 401, 'authentication_required');
        expectError(await service.http('GET', '/v1/collections/col_x', { key: 'sk_wrong' }), 401, 'authentication_required');
      });
    });

    describe('validation (contract section 2), in the order of the contract', () => {
      it.each<[string, string, string, Record<string, unknown>]>([
        ['amount missing', 'invalid_request', 'amount', { amount: undefined }],
        ['amount null', 'invalid_request', 'amount', { amount: null }],
        ['amount 0', 'invalid_amount', 'amount', { amount: 0 }],
        ['amount a decimal', 'invalid_amount', 'amount', { amount: 12.5 }],
        ['amount a string', 'invalid_amount', 'amount', { amount: '1250000' }],
        ['amount above 100000000000', 'invalid_amount', 'amount', { amount: 100_000_000_001 }],
        ['currency not supported', 'unsupported_currency', 'currency', { currency: 'EUR' }],
        ['currency in lower case', 'unsupported_currency', 'currency', { currency: 'dzd' }],
        ['order_reference empty', 'invalid_request', 'order_reference', { order_reference: '' }],
        ['order_reference longer than 255', 'invalid_request', 'order_reference', { order_reference: 'x'.repeat(256) }],
        ['order_reference a number', 'invalid_request', 'order_reference', { order_reference: 42 }],
        ['beneficiary_connection missing', 'invalid_request', 'beneficiary_connection', { beneficiary_connection: undefined }],
        ['an unknown parameter', 'invalid_request', 'color', { color: 'red' }],
        ['invalid_request before invalid_amount', 'invalid_request', 'order_reference', { amount: 0, order_reference: '' }],
        ['invalid_amount before unsupported_currency', 'invalid_amount', 'amount', { amount: -5, currency: 'EUR' }],
        ['body shape before authorization', 'invalid_amount', 'amount', { amount: 0, beneficiary_connection: 'conn_unknown0000000000000000' }],
      ])('%s: 400 %s (param %s)', async (_case, code, param, overrides) => {
        const response = await create(shop, collectionBody(shop, overrides));
        expectError(response, 400, code, param);
      });

      it('a body that is not a JSON object: 400 invalid_request', async () => {
        expectError(await service.http('POST', '/v1/collections', { key: shop.apiKey, rawBody: '[1,2]' }), 400, 'invalid_request');
      });

      it('beneficiary_connection of another integrator, unknown, or not a wholesaler: 403 connection_not_authorized', async () => {
        const other = await wholesale();
        for (const beneficiary_connection of [other.wholesaler, 'conn_unknown0000000000000000', shop.merchant]) {
          expectError(await create(shop, collectionBody(shop, { beneficiary_connection })), 403, 'connection_not_authorized', 'beneficiary_connection');
        }
      });

      it("a currency other than the wholesaler account's: 400 currency_mismatch, after authorization", async () => {
        expectError(await create(shop, collectionBody(shop, { currency: 'TND' })), 400, 'currency_mismatch', 'currency');
        const other = await wholesale();
        expectError(await create(shop, collectionBody(shop, { currency: 'TND', beneficiary_connection: other.wholesaler })), 403, 'connection_not_authorized');
      });
    });

    describe('idempotency (contract section 3)', () => {
      it('same key and body: the same collection, replayed; another body: 409 idempotency_key_reused; no key: a new collection each time', async () => {
        const key = idempotencyKey();
        const body = collectionBody(shop);
        const first = await create(shop, body, { 'Idempotency-Key': key });
        expect(first.status).toBe(201);
        const again = await create(shop, body, { 'Idempotency-Key': key });
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expectError(await create(shop, { ...body, amount: AMOUNT + 1 }, { 'Idempotency-Key': key }), 409, 'idempotency_key_reused');
        const a = await create(shop, body);
        const b = await create(shop, body);
        expect([a.status, b.status]).toEqual([201, 201]);
        expect(a.body.id).not.toBe(b.body.id);
      });

      it('a create that failed validation stores nothing: the key then serves a valid request', async () => {
        const key = idempotencyKey();
        expectError(await create(shop, collectionBody(shop, { amount: 0 }), { 'Idempotency-Key': key }), 400, 'invalid_amount');
        expect((await create(shop, collectionBody(shop), { 'Idempotency-Key': key })).status).toBe(201);
      });
    });

    describe('handover (confirm_handover)', () => {
      it('collected_awaiting_deposit: collected_at set, deposit at the first registered cash point due 24 h later exactly, no funds credited', async () => {
        const other = await wholesale();
        const before = await balanceOf(service, other.wholesaler);
        const collection = await createCollection(other);
        const response = await handover(collection.id, other);
        expect(response.status).toBe(200);
        const body = response.body;
        expect(body).toMatchObject({ id: collection.id, status: 'collected_awaiting_deposit', settlement: null });
        expect(body.collected_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(body.deposit).toEqual({
          point: firstPoint,
          due_at: new Date(Date.parse(body.collected_at) + DAY_MS).toISOString(),
          overdue: false,
          deposited_late: false,
          amount_expected: AMOUNT,
          amount_received: null,
          validated_at: null,
        });
        expect((await retrieve(collection.id, other)).body).toEqual(body);
        expect(await balanceOf(service, other.wholesaler)).toBe(before);
        // The ledger follows the cash: from the platform's cash to cash in transit, no fee, nobody credited.
        const entries = await entriesOf(collection.id);
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({ reference: collection.id, kind: 'cash_handover' });
        expect(entries[0].postings).toEqual([
          { account: 'platform:cash:DZD', direction: 'debit', amount: AMOUNT, currency: 'DZD' },
          { account: 'platform:cash_in_transit:DZD', direction: 'credit', amount: AMOUNT, currency: 'DZD' },
        ]);
      });

      it('deposit.overdue: false before due_at, true once the service clock passes it (24 h advance), status unchanged', async () => {
        const collection = await collected();
        expect((await retrieve(collection.id)).body.deposit.overdue).toBe(false);
        expect((await advance(24 * 3600)).status).toBe(200);
        const later = (await retrieve(collection.id)).body;
        expect(later.status).toBe('collected_awaiting_deposit');
        expect(later.deposit).toMatchObject({ overdue: true, validated_at: null, deposited_late: false });
      });
    });

    describe('deposit validation (validate_deposit) and settlement', () => {
      it('on time: settled, settlement populated (fee + net = gross, settled_at = validated_at), deposited_late false; wholesaler credited net once', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        const response = await deposit(collection.id, AMOUNT, owner);
        expect(response.status).toBe(200);
        const settled = response.body;
        expect(settled).toMatchObject({ status: 'settled', collected_at: collection.collected_at });
        expect(settled.deposit).toEqual({ ...collection.deposit, amount_received: AMOUNT, validated_at: expect.any(String), overdue: false, deposited_late: false });
        expect(settled.settlement).toEqual({ gross_amount: AMOUNT, fee_amount: FEE, net_amount: NET, currency: 'DZD', settled_at: settled.deposit.validated_at });
        expect(Date.parse(settled.deposit.validated_at)).toBeLessThanOrEqual(Date.parse(settled.deposit.due_at));
        expect((await retrieve(collection.id, owner)).body).toEqual(settled);
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
        await expectBalancedTrialBalance(service);
      });

      it('the ledger: handover (platform cash to in transit), deposit (in transit to the cash point), settlement (cash point to wholesaler net + platform fee)', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT, owner);
        const entries = await entriesOf(collection.id);
        expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['cash_handover', 'cash_deposit', 'settlement']);
        const [handoverEntry, depositEntry, settlementEntry] = entries;
        expect(handoverEntry.postings).toEqual([
          { account: 'platform:cash:DZD', direction: 'debit', amount: AMOUNT, currency: 'DZD' },
          { account: IN_TRANSIT, direction: 'credit', amount: AMOUNT, currency: 'DZD' },
        ]);
        expect(depositEntry.postings).toEqual([
          { account: IN_TRANSIT, direction: 'debit', amount: AMOUNT, currency: 'DZD' },
          { account: pointAccount(), direction: 'credit', amount: AMOUNT, currency: 'DZD' },
        ]);
        expect(settlementEntry.postings).toEqual([
          { account: pointAccount(), direction: 'debit', amount: AMOUNT, currency: 'DZD' },
          { account: owner.wholesaler, direction: 'credit', amount: NET, currency: 'DZD' },
          { account: 'platform:fees:DZD', direction: 'credit', amount: FEE, currency: 'DZD' },
        ]);
      });

      it("settled_at (= deposit.validated_at) is the time of the credit: the wholesaler's balance as of settled_at holds it, 1 ms before does not", async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        const settledAt = settled.settlement.settled_at;
        expect(settled.deposit.validated_at).toBe(settledAt);
        const balanceAsOf = async (at: number) => {
          const response = await service.admin('GET', `/admin/v1/balances/${owner.wholesaler}?as_of=${new Date(at).toISOString()}`);
          expect(response.status).toBe(200);
          return response.body.available;
        };
        expect(await balanceAsOf(Date.parse(settledAt))).toBe(NET);
        expect(await balanceAsOf(Date.parse(settledAt) - 1)).toBe(0);
        const settlementEntry = (await entriesOf(collection.id)).find((e: { kind: string }) => e.kind === 'settlement');
        expect(settlementEntry.created_at).toBe(settledAt);
        expect((await retrieve(collection.id, owner)).body).toEqual(settled);
      });

      it('cash in transit and at the cash point over the lifecycle: + amount in transit at handover, moved to the cash point at the deposit, both back to zero after settlement', async () => {
        const owner = await wholesale();
        const start = await custody();
        const collection = await collected(owner);
        expect(await custody()).toEqual({ inTransit: start.inTransit + AMOUNT, atPoint: start.atPoint });
        await deposit(collection.id, AMOUNT - 1_000, owner);
        expect(await custody()).toEqual({ inTransit: start.inTransit + 1_000, atPoint: start.atPoint + AMOUNT - 1_000 });
        await deposit(collection.id, AMOUNT, owner);
        expect(await custody()).toEqual(start);
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
      });

      it('an over deposit takes cash in transit below what was collected (negative for this collection) until resolved; a cash point account is read as cp_…:<CUR>', async () => {
        const owner = await wholesale();
        const start = await custody();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT + 5_000, owner);
        expect(await custody()).toEqual({ inTransit: start.inTransit - 5_000, atPoint: start.atPoint + AMOUNT + 5_000 });
        const point = await service.admin('GET', `/admin/v1/balances/${pointAccount()}`);
        expect(point.body).toEqual({ object: 'balance', owner: pointAccount(), currency: 'DZD', available: start.atPoint + AMOUNT + 5_000 });
        expect((await service.admin('GET', `/admin/v1/balances/${firstPoint}`)).body.error).toMatchObject({ code: 'invalid_request', param: 'owner' });
        await deposit(collection.id, AMOUNT, owner);
        expect(await custody()).toEqual(start);
      });

      it('late (validated after due_at): settled all the same, deposited_late true, overdue back to false', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        await advance(24 * 3600 + 1);
        expect((await retrieve(collection.id, owner)).body.deposit.overdue).toBe(true);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        expect(settled.status).toBe('settled');
        expect(settled.deposit).toMatchObject({ deposited_late: true, overdue: false, amount_received: AMOUNT });
        expect(Date.parse(settled.deposit.validated_at)).toBeGreaterThan(Date.parse(settled.deposit.due_at));
        expect(settled.settlement).toMatchObject({ gross_amount: AMOUNT, net_amount: NET, settled_at: settled.deposit.validated_at });
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
      });

      it('validated shortly before due_at: on time (deposited_late false)', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        // Real time runs on between the collection and the deposit (an advance with several instances
        // of each app takes a good part of a second on a busy machine): 30 s short of due_at, not 1 s.
        expect((await advance(24 * 3600 - 30)).status).toBe(200);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        expect(settled).toMatchObject({ status: 'settled', deposit: { deposited_late: false, overdue: false } });
        expect(Date.parse(settled.deposit.validated_at)).toBeLessThan(Date.parse(settled.deposit.due_at));
      });

      it('validated 1 s after due_at: late (deposited_late true), settled all the same', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        expect((await advance(24 * 3600 + 1)).status).toBe(200);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        expect(settled).toMatchObject({ status: 'settled', deposit: { deposited_late: true, overdue: false }, settlement: { gross_amount: AMOUNT, net_amount: NET } });
        expect(Date.parse(settled.deposit.validated_at)).toBeGreaterThan(Date.parse(settled.deposit.due_at));
      });

      it.each([
        ['a short deposit', AMOUNT - 100_000],
        ['an over deposit', AMOUNT + 100_000],
        ['nothing deposited (0)', 0],
      ])('%s: deposit_under_review, amount_received recorded, no credit; the ledger moves only the cash counted to the cash point', async (_case, amountReceived) => {
        const owner = await wholesale();
        const collection = await collected(owner);
        const response = await deposit(collection.id, amountReceived, owner);
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'deposit_under_review', settlement: null });
        expect(response.body.deposit).toEqual({ ...collection.deposit, amount_received: amountReceived, validated_at: null, deposited_late: false });
        expect(await balanceOf(service, owner.wholesaler)).toBe(0);
        expect(await kindsOf(collection.id)).toEqual(amountReceived === 0 ? ['cash_handover'] : ['cash_handover', 'cash_deposit']);
      });

      it('from deposit_under_review: another wrong count is recorded; the complete deposit then settles, credited once', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT - 1, owner);
        const recount = (await deposit(collection.id, AMOUNT - 2, owner)).body;
        expect(recount).toMatchObject({ status: 'deposit_under_review', deposit: { amount_received: AMOUNT - 2 } });
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        expect(settled).toMatchObject({ status: 'settled', deposit: { amount_received: AMOUNT }, settlement: { gross_amount: AMOUNT, net_amount: NET } });
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
        expect(await kindsOf(collection.id)).toEqual(['cash_handover', 'cash_deposit', 'cash_deposit', 'cash_deposit', 'settlement']);
      });

      it.each<[string, number, string, unknown]>([
        ['amount_received -1', 400, 'invalid_amount', { amount_received: -1 }],
        ['amount_received a decimal', 400, 'invalid_amount', { amount_received: 12.5 }],
        ['amount_received a string', 400, 'invalid_amount', { amount_received: '1250000' }],
        ['amount_received missing', 400, 'invalid_request', {}],
        ['amount_received null', 400, 'invalid_request', { amount_received: null }],
        ['an unknown parameter', 400, 'invalid_request', { amount_received: AMOUNT, cash_point: 'cp_x' }],
      ])('%s: %s %s, nothing changes', async (_case, status, code, body) => {
        const collection = await collected();
        expectError(await validate(collection.id, body), status, code);
        expect((await retrieve(collection.id)).body.status).toBe('collected_awaiting_deposit');
      });
    });

    describe('actions the status does not allow: 409 invalid_status', () => {
      it('validate_deposit before the handover', async () => {
        const collection = await createCollection();
        expectError(await deposit(collection.id, AMOUNT), 409, 'invalid_status');
        expect((await retrieve(collection.id)).body.status).toBe('awaiting_collection');
      });

      it('confirm_handover twice, and from deposit_under_review', async () => {
        const collection = await collected();
        expectError(await handover(collection.id), 409, 'invalid_status');
        await deposit(collection.id, 1);
        expectError(await handover(collection.id), 409, 'invalid_status');
      });

      it('anything after settled; the wholesaler is credited once', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        expectError(await deposit(collection.id, AMOUNT, owner), 409, 'invalid_status');
        expectError(await deposit(collection.id, 1, owner), 409, 'invalid_status');
        expectError(await handover(collection.id, owner), 409, 'invalid_status');
        expect((await retrieve(collection.id, owner)).body).toEqual(settled);
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
        expect(await kindsOf(collection.id)).toEqual(['cash_handover', 'cash_deposit', 'settlement']);
      });
    });

    describe('back-office resolution of a deposit under review (POST /admin/v1/collections/{id}/resolve_deposit)', () => {
      it('accept_received of a short deposit: settled with gross = the amount received, fee on it, wholesaler credited net; the shortfall written off, custody back to zero', async () => {
        const owner = await wholesale();
        const hook = await new Receiver().start();
        receivers.push(hook);
        await service.http('POST', '/v1/webhook_endpoints', { key: owner.apiKey, body: { url: hook.url, enabled_events: ['settlement.completed'] } });
        const start = await custody();
        const received = 1_000_000;
        const collection = await collected(owner);
        await deposit(collection.id, received, owner);
        const response = await resolve(collection.id, { resolution: 'accept_received' });
        expect(response.status).toBe(200);
        const fee = 25_000; // 250 bp of the amount received
        expect(response.body).toMatchObject({
          id: collection.id,
          status: 'settled',
          amount: AMOUNT,
          deposit: { amount_expected: AMOUNT, amount_received: received, overdue: false },
          settlement: { gross_amount: received, fee_amount: fee, net_amount: received - fee, currency: 'DZD', settled_at: response.body.deposit.validated_at },
        });
        expect((await retrieve(collection.id, owner)).body).toEqual(response.body);
        // The back office's decision is in the audit trail, on the collection, with the wholesaler's integrator.
        const audited = await service.admin('GET', `/admin/v1/audit_events?action=collection.deposit_resolved&integrator=${owner.id}`);
        expect(audited.body.data).toEqual([
          expect.objectContaining({ actor: { type: 'admin', id: null }, integrator: owner.id, target: { object: 'collection', id: collection.id }, request_id: response.headers.get('request-id') }),
        ]);
        expect(await balanceOf(service, owner.wholesaler)).toBe(received - fee);
        expect(await custody()).toEqual(start);
        const entries = await entriesOf(collection.id);
        expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['cash_handover', 'cash_deposit', 'cash_write_off', 'settlement']);
        expect(entries[2].postings).toEqual([
          { account: IN_TRANSIT, direction: 'debit', amount: AMOUNT - received, currency: 'DZD' },
          { account: 'platform:cash:DZD', direction: 'credit', amount: AMOUNT - received, currency: 'DZD' },
        ]);
        await hook.waitFor(1);
        expect(hook.events()).toEqual([expect.objectContaining({ type: 'settlement.completed', data: expect.objectContaining({ id: collection.id, settlement: response.body.settlement }) })]);
        expectError(await resolve(collection.id, { resolution: 'accept_received' }), 409, 'invalid_status');
      });

      it('recounts racing on one deposit (cashier validations, back-office corrections): each answers 200 or 409, never 500; the books follow the last count', async () => {
        const owner = await wholesale();
        for (let round = 0; round < 3; round++) {
          const collection = await collected(owner);
          expect((await deposit(collection.id, 10_000, owner)).status).toBe(200);
          const counts = [500_000, 200_000, 800_000, 1_300_000];
          const responses = await Promise.all(counts.flatMap((count) => [resolve(collection.id, { resolution: 'correct', amount_received: count }), deposit(collection.id, count + 1, owner)]));
          for (const response of responses) expect([200, 409]).toContain(response.status);
          const final = (await retrieve(collection.id, owner)).body;
          const cashDeposits = (await entriesOf(collection.id)).filter((e: { kind: string }) => e.kind === 'cash_deposit');
          // What left the in-transit account for the cash point, recounts included: the count the books hold.
          const counted = cashDeposits
            .flatMap((e: { postings: { account: string; direction: string; amount: number }[] }) => e.postings)
            .filter((p: { account: string }) => p.account === IN_TRANSIT)
            .reduce((sum: number, p: { direction: string; amount: number }) => sum + (p.direction === 'debit' ? p.amount : -p.amount), 0);
          if (final.status === 'settled') expect(final.settlement.gross_amount).toBe(final.deposit.amount_received);
          else expect(counted).toBe(final.deposit.amount_received);
        }
        await expectBalancedTrialBalance(service);
      });

      it('accept_received of an over deposit: gross = the amount received; the surplus written off from the platform cash, in transit back to zero', async () => {
        const owner = await wholesale();
        const start = await custody();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT + 40_000, owner);
        const settled = (await resolve(collection.id, { resolution: 'accept_received' })).body;
        expect(settled).toMatchObject({ status: 'settled', settlement: { gross_amount: AMOUNT + 40_000, fee_amount: 32_250, net_amount: AMOUNT + 40_000 - 32_250 } });
        expect(await balanceOf(service, owner.wholesaler)).toBe(AMOUNT + 40_000 - 32_250);
        expect(await custody()).toEqual(start);
      });

      it('correct with the expected amount: settles as a normal deposit (settlement.completed), credited net once', async () => {
        const owner = await wholesale();
        const start = await custody();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT - 10_000, owner);
        const response = await resolve(collection.id, { resolution: 'correct', amount_received: AMOUNT });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'settled', deposit: { amount_received: AMOUNT, deposited_late: false }, settlement: { gross_amount: AMOUNT, fee_amount: FEE, net_amount: NET } });
        expect(await balanceOf(service, owner.wholesaler)).toBe(NET);
        expect(await custody()).toEqual(start);
        const events = (await service.http('GET', '/v1/events', { key: owner.apiKey })).body.data.map((e: { type: string }) => e.type);
        expect(events).toEqual(['settlement.completed', 'collection.deposit_under_review', 'collection.collected']);
      });

      it('correct with another amount: stays deposit_under_review with the recount (a new collection.deposit_under_review), nothing credited', async () => {
        const owner = await wholesale();
        const start = await custody();
        const collection = await collected(owner);
        await deposit(collection.id, AMOUNT - 10_000, owner);
        const response = await resolve(collection.id, { resolution: 'correct', amount_received: AMOUNT - 20_000 });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'deposit_under_review', settlement: null, deposit: { amount_received: AMOUNT - 20_000, validated_at: null } });
        expect(await balanceOf(service, owner.wholesaler)).toBe(0);
        expect(await custody()).toEqual({ inTransit: start.inTransit + 20_000, atPoint: start.atPoint + AMOUNT - 20_000 });
        const events = (await service.http('GET', '/v1/events', { key: owner.apiKey })).body.data.map((e: { type: string }) => e.type);
        expect(events).toEqual(['collection.deposit_under_review', 'collection.deposit_under_review', 'collection.collected']);
        // Then settled, so that custody returns to where it was for the scenarios after this one.
        expect((await resolve(collection.id, { resolution: 'correct', amount_received: AMOUNT })).body.status).toBe('settled');
        expect(await custody()).toEqual(start);
      });

      it.each<[string, unknown, string]>([
        ['an unknown resolution', { resolution: 'refund' }, 'invalid_request'],
        ['no resolution', {}, 'invalid_request'],
        ['correct without amount_received', { resolution: 'correct' }, 'invalid_request'],
        ['correct with amount_received null (null counts as missing)', { resolution: 'correct', amount_received: null }, 'invalid_request'],
        ['accept_received with an amount_received', { resolution: 'accept_received', amount_received: AMOUNT }, 'invalid_request'],
        ['an unknown parameter', { resolution: 'accept_received', note: 'x' }, 'invalid_request'],
        ['correct with a negative amount_received', { resolution: 'correct', amount_received: -1 }, 'invalid_amount'],
      ])('%s: 400 %s, nothing changes', async (_case, body, code) => {
        const collection = await collected();
        await deposit(collection.id, AMOUNT - 1);
        expectError(await resolve(collection.id, body), 400, code);
        expect((await retrieve(collection.id)).body).toMatchObject({ status: 'deposit_under_review', deposit: { amount_received: AMOUNT - 1 } });
      });

      it('a collection not under review: 409 invalid_status; an unknown collection: 404; an integrator key: 401', async () => {
        const awaiting = await createCollection();
        const collectedOnly = await collected();
        for (const id of [awaiting.id, collectedOnly.id]) {
          expectError(await resolve(id, { resolution: 'accept_received' }), 409, 'invalid_status');
          expectError(await resolve(id, { resolution: 'correct', amount_received: AMOUNT }), 409, 'invalid_status');
        }
        expectError(await resolve('col_doesnotexist000000000000', { resolution: 'accept_received' }), 404, 'resource_not_found');
        const asIntegrator = await service.http('POST', `/admin/v1/collections/${collectedOnly.id}/resolve_deposit`, { key: shop.apiKey, body: { resolution: 'accept_received' } });
        expectError(asIntegrator, 401, 'authentication_required');
        // Refused, they are not in the audit trail.
        const audited = (await service.admin('GET', '/admin/v1/audit_events?action=collection.deposit_resolved&limit=100')).body.data as { target: { id: string } }[];
        expect(audited.filter((e) => [awaiting.id, collectedOnly.id, 'col_doesnotexist000000000000'].includes(e.target.id))).toEqual([]);
      });
    });

    describe('overdue deposit: collection.deposit_overdue', () => {
      it('emitted once, the first time the deposit is seen past due_at (two clock advances: one event), with deposit.overdue true and object_version', async () => {
        const owner = await wholesale();
        const hook = await new Receiver().start();
        receivers.push(hook);
        await service.http('POST', '/v1/webhook_endpoints', { key: owner.apiKey, body: { url: hook.url, enabled_events: ['collection.deposit_overdue'] } });
        const collection = await collected(owner);
        const settledEarlier = await collected(owner);
        await deposit(settledEarlier.id, AMOUNT, owner);

        expect((await advance(24 * 3600 + 1)).status).toBe(200);
        // Applied before the advance answers: listed right away.
        const listed = async () =>
          (await service.http('GET', '/v1/events', { key: owner.apiKey })).body.data.filter((e: { type: string }) => e.type === 'collection.deposit_overdue');
        expect(await listed()).toHaveLength(1);
        expect((await advance(3600)).status).toBe(200);
        await new Promise((resolveWait) => setTimeout(resolveWait, 1_500)); // the 1 s sweep ran too
        const overdue = await listed();
        expect(overdue).toHaveLength(1);

        await hook.waitFor(1);
        const delivered = hook.events();
        expect(delivered).toHaveLength(1);
        expect(delivered[0]).toMatchObject({ id: overdue[0].id, type: 'collection.deposit_overdue' });
        expect(delivered[0]!.data).toMatchObject({
          id: collection.id,
          object: 'collection',
          status: 'collected_awaiting_deposit',
          deposit: { overdue: true, validated_at: null, due_at: collection.deposit.due_at },
          object_version: expect.any(Number),
        });
        expect(Date.parse(overdue[0].created_at)).toBeGreaterThan(Date.parse(collection.deposit.due_at));
        // A late deposit still settles, deposited_late.
        expect((await deposit(collection.id, AMOUNT, owner)).body).toMatchObject({ status: 'settled', deposit: { deposited_late: true, overdue: false } });
        expect(hook.events()).toHaveLength(1);
      });
    });

    describe('events (contract section 6)', () => {
      it('collection.collected, collection.deposit_under_review and settlement.completed are delivered with the spec payloads and object_version', async () => {
        const owner = await wholesale();
        const hook = await new Receiver().start();
        receivers.push(hook);
        const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: owner.apiKey, body: { url: hook.url, enabled_events: ['*'] } });
        expect(endpoint.status).toBe(201);

        const collection = await collected(owner);
        await hook.waitFor(1);
        const short = (await deposit(collection.id, AMOUNT - 500, owner)).body;
        await hook.waitFor(2);
        const settled = (await deposit(collection.id, AMOUNT, owner)).body;
        await hook.waitFor(3);

        const events = hook.events() as { id: string; type: string; created_at: string; data: any }[];
        expect(events.map((e) => e.type)).toEqual(['collection.collected', 'collection.deposit_under_review', 'settlement.completed']);
        const [collectedEvent, reviewEvent, settlementEvent] = events;
        for (const event of events) {
          expect(event).toMatchObject({ object: 'event', id: expect.stringMatching(/^evt_[0-9A-Za-z]{20,}$/) });
          expect(event.data).toMatchObject({ id: collection.id, object: 'collection', amount: AMOUNT, currency: 'DZD', order_reference: collection.order_reference });
        }
        // Receiver rule 9: collection.collected is not a settlement; nothing was credited yet.
        expect(collectedEvent!.data).toMatchObject({ status: 'collected_awaiting_deposit', settlement: null, deposit: collection.deposit, collected_at: collection.collected_at });
        expect(reviewEvent!.data).toMatchObject({ status: 'deposit_under_review', settlement: null, deposit: short.deposit });
        expect(settlementEvent!.data).toMatchObject({
          status: 'settled',
          amount: AMOUNT,
          order_reference: collection.order_reference,
          beneficiary_connection: owner.wholesaler,
          settlement: { gross_amount: AMOUNT, fee_amount: FEE, net_amount: NET, currency: 'DZD', settled_at: settled.settlement.settled_at },
          deposit: settled.deposit,
        });
        expect(settlementEvent!.created_at).toBe(settled.settlement.settled_at);
        const versions = events.map((e) => e.data.object_version as number);
        expect(versions).toEqual([...versions].sort((a, b) => a - b));
        expect(new Set(versions).size).toBe(3);

        const listed = await service.http('GET', '/v1/events?limit=10', { key: owner.apiKey });
        expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual(events.map((e) => e.id).reverse());
      });

      it('events are recorded before the helper answers: listed by GET /v1/events right away', async () => {
        const owner = await wholesale();
        const collection = await collected(owner);
        const listed = await service.http('GET', '/v1/events', { key: owner.apiKey });
        expect(listed.body.data).toEqual([expect.objectContaining({ type: 'collection.collected', data: expect.objectContaining({ id: collection.id }) })]);
      });
    });

    it("another currency: an XOF collection settles to an XOF wholesaler through the cash point's XOF account", async () => {
      const owner = await wholesale('XOF');
      const collection = await collected(owner, { amount: 50_000, currency: 'XOF' });
      const settled = (await deposit(collection.id, 50_000, owner)).body;
      expect(settled.settlement).toEqual({ gross_amount: 50_000, fee_amount: 1_250, net_amount: 48_750, currency: 'XOF', settled_at: settled.deposit.validated_at });
      expect(await balanceOf(service, owner.wholesaler)).toBe(48_750);
      const [handoverEntry, , settlementEntry] = await entriesOf(collection.id);
      expect(handoverEntry.postings).toContainEqual({ account: 'platform:cash:XOF', direction: 'debit', amount: 50_000, currency: 'XOF' });
      expect(settlementEntry.postings).toContainEqual({ account: `${firstPoint}:XOF`, direction: 'debit', amount: 50_000, currency: 'XOF' });
      expect(await balanceOrZero(`${firstPoint}:XOF`)).toBe(0);
      expect(await balanceOrZero('platform:cash_in_transit:XOF')).toBe(0);
    });
  });
});

/**
 * The settlement process survives a crash between its steps (all-in-one as `npm start` runs it; the
 * distributed topology has its own fault tests): a failpoint kills the process right after the ledger
 * transfer, before the settlement is recorded. After a restart on the same DATA_DIR the start-up
 * recovery completes it; the wholesaler was credited exactly once and settlement.completed is listed.
 */
(DISTRIBUTED ? describe.skip : describe)('crash between the settlement ledger transfer and its completion', () => {
  const adminKey = `admin_${randomBase62(32)}`;
  let dataDir: string;
  let running: ServiceProcess | undefined;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pay-collections-crash-'));
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('resumes after restart: settled, the wholesaler credited net once, settlement.completed recorded', async () => {
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'collections.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Crash wholesale' })).body;
    const wholesaler = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'wholesaler', name: 'W', currency: 'DZD' })).body;
    expect((await admin('POST', '/admin/v1/cash_points', { name: 'Point Blida', address: 'Blida' })).status).toBe(201);
    const body = { amount: AMOUNT, currency: 'DZD', order_reference: 'crash-delivery', beneficiary_connection: wholesaler.id };
    const collection = (await running.http('POST', '/v1/collections', { key: integrator.api_key, body })).body;
    expect((await running.http('POST', `/v1/test_helpers/collections/${collection.id}/confirm_handover`, { key: integrator.api_key })).status).toBe(200);

    // The process dies inside this request: the client sees the connection drop.
    await expect(
      running.http('POST', `/v1/test_helpers/collections/${collection.id}/validate_deposit`, { key: integrator.api_key, body: { amount_received: AMOUNT } }),
    ).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint collections.after-ledger-transfer');

    running = await startServiceProcess(env());
    const after = (await running.http('GET', `/v1/collections/${collection.id}`, { key: integrator.api_key })).body;
    expect(after).toMatchObject({ status: 'settled', settlement: { gross_amount: AMOUNT, fee_amount: FEE, net_amount: NET }, deposit: { amount_received: AMOUNT } });
    expect(after.settlement.settled_at).toBe(after.deposit.validated_at);
    expect((await admin('GET', `/admin/v1/balances/${wholesaler.id}`)).body.available).toBe(NET);
    const kinds = (await admin('GET', `/admin/v1/ledger/entries?reference=${collection.id}`)).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['cash_handover', 'cash_deposit', 'settlement']);
    expect((await admin('GET', '/admin/v1/balances/platform:cash_in_transit:DZD')).body.available).toBe(0);
    const trial = (await admin('GET', '/admin/v1/ledger/trial_balance')).body;
    for (const line of trial.currencies) expect(line.total_debits).toBe(line.total_credits);
    const events = (await running.http('GET', '/v1/events', { key: integrator.api_key })).body.data.map((e: { type: string }) => e.type);
    expect(events).toEqual(['settlement.completed', 'collection.collected']);
    expect((await running.http('POST', `/v1/test_helpers/collections/${collection.id}/validate_deposit`, { key: integrator.api_key, body: { amount_received: AMOUNT } })).status).toBe(409);
  }, CRASH_TEST_TIMEOUT_MS);
});
