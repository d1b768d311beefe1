import { Webhook } from 'standardwebhooks';
import {
  balanceOf,
  createIntegrator,
  expectBalancedTrialBalance,
  idempotencyKey,
  PUBLIC_BASE_URL,
  startTestService,
  type Integrator,
  type Response,
  type TestService,
} from './harness';
import { Receiver } from './receiver';

const DAY_S = 24 * 3600;
/** Default fee schedule for supplier payments: 100 basis points, added on top of the amount. */
const feeOf = (amount: number) => Math.round(amount / 100);

/** A business (integrator, business connection in `currency`) and one authorized beneficiary of it. */
interface Business {
  shop: Integrator;
  business: string;
  beneficiary: string;
}

describe('supplier payments and beneficiaries over HTTP', () => {
  let service: TestService;
  const receivers: Receiver[] = [];
  let invoiceCounter = 0;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const createBusinessConnection = async (shop: Integrator, currency = 'DZD'): Promise<string> => {
    const connection = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'business', name: 'Atlas Distribution', currency } });
    expect(connection.status).toBe(201);
    return connection.body.id;
  };
  const createBeneficiary = async (business: string, currency = 'DZD'): Promise<string> => {
    const beneficiary = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies SARL', currency } });
    expect(beneficiary.status).toBe(201);
    expect(beneficiary.body.status).toBe('authorized');
    return beneficiary.body.id;
  };
  const revoke = async (beneficiary: string) => expect((await service.admin('POST', `/admin/v1/beneficiaries/${beneficiary}/revoke`)).status).toBe(200);
  const fund = async (account: string, amount: number, currency = 'DZD') =>
    expect((await service.admin('POST', '/admin/v1/topups', { body: { account, amount, currency } })).status).toBe(201);
  const setup = async (currency = 'DZD'): Promise<Business> => {
    const shop = await createIntegrator(service);
    const business = await createBusinessConnection(shop, currency);
    return { shop, business, beneficiary: await createBeneficiary(business, currency) };
  };

  const body = (b: Business, overrides: Record<string, unknown> = {}) => ({
    payer_connection: b.business,
    beneficiary: b.beneficiary,
    amount: 5_000_000,
    currency: 'DZD',
    invoice_reference: `INV-${process.pid}-${++invoiceCounter}`,
    description: 'November supplies',
    ...overrides,
  });
  const post = (b: Business, payload: unknown, headers: Record<string, string> = {}) =>
    service.http('POST', '/v1/supplier_payments', { key: b.shop.apiKey, body: payload, headers });
  const create = async (b: Business, overrides: Record<string, unknown> = {}) => {
    const response = await post(b, body(b, overrides));
    expect(response.status).toBe(201);
    return response.body;
  };
  const get = (b: Business, id: string) => service.http('GET', `/v1/supplier_payments/${id}`, { key: b.shop.apiKey });
  const list = (b: Business, query = '') => service.http('GET', `/v1/supplier_payments${query}`, { key: b.shop.apiKey });
  const action = (b: Business, id: string, name: 'approve' | 'reject' | 'cancel') =>
    service.http('POST', name === 'cancel' ? `/v1/supplier_payments/${id}/cancel` : `/v1/test_helpers/supplier_payments/${id}/${name}`, { key: b.shop.apiKey });
  const advance = (b: Business, seconds: number) => service.http('POST', '/v1/test_helpers/clock/advance', { key: b.shop.apiKey, body: { seconds } });
  const entriesOf = async (reference: string) => (await service.admin('GET', `/admin/v1/ledger/entries?reference=${reference}`)).body.data;
  const ids = (response: Response) => response.body.data.map((p: { id: string }) => p.id);
  const expectError = (response: Response, status: number, code: string, param?: string) =>
    expect({ status: response.status, ...response.body.error }).toMatchObject({ status, code, ...(param ? { param } : {}) });

  describe('GET /v1/beneficiaries/{id}', () => {
    it('with the business as payer_connection: the beneficiary object', async () => {
      const b = await setup();
      const response = await service.http('GET', `/v1/beneficiaries/${b.beneficiary}?payer_connection=${b.business}`, { key: b.shop.apiKey });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: b.beneficiary,
        object: 'beneficiary',
        account_name: 'Sahel Supplies SARL',
        status: 'authorized',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(b.beneficiary).toMatch(/^ben_[0-9A-Za-z]{20,}$/);
    });

    it('a missing payer_connection is 400 invalid_request', async () => {
      const b = await setup();
      expectError(await service.http('GET', `/v1/beneficiaries/${b.beneficiary}`, { key: b.shop.apiKey }), 400, 'invalid_request', 'payer_connection');
      expectError(await service.http('GET', `/v1/beneficiaries/${b.beneficiary}?payer_connection=`, { key: b.shop.apiKey }), 400, 'invalid_request', 'payer_connection');
    });

    it("a payer_connection that is not the caller's (another integrator's, or unknown) is 403 connection_not_authorized", async () => {
      const b = await setup();
      const other = await setup();
      for (const connection of [other.business, 'conn_doesnotexist00000000000']) {
        const response = await service.http('GET', `/v1/beneficiaries/${b.beneficiary}?payer_connection=${connection}`, { key: b.shop.apiKey });
        expectError(response, 403, 'connection_not_authorized', 'payer_connection');
      }
    });

    it("a beneficiary of another business (the caller's other business, or another integrator's) is 404; so is an unknown id", async () => {
      const b = await setup();
      const secondBusiness = await createBusinessConnection(b.shop);
      const other = await setup();
      for (const [beneficiary, payer] of [
        [b.beneficiary, secondBusiness],
        [other.beneficiary, b.business],
        ['ben_doesnotexist000000000000', b.business],
      ]) {
        const response = await service.http('GET', `/v1/beneficiaries/${beneficiary}?payer_connection=${payer}`, { key: b.shop.apiKey });
        expectError(response, 404, 'resource_not_found');
      }
    });

    it('a revoked beneficiary is still retrievable, with status revoked', async () => {
      const b = await setup();
      await revoke(b.beneficiary);
      const response = await service.http('GET', `/v1/beneficiaries/${b.beneficiary}?payer_connection=${b.business}`, { key: b.shop.apiKey });
      expect(response).toMatchObject({ status: 200, body: { id: b.beneficiary, status: 'revoked' } });
    });

    it('without an API key: 401 authentication_required', async () => {
      const b = await setup();
      expectError(await service.http('GET', `/v1/beneficiaries/${b.beneficiary}?payer_connection=${b.business}`), 401, 'authentication_required');
    });
  });

  describe('create supplier payment', () => {
    it('201, status awaiting_approval, approval_url and expires_at (created + 7 days) set', async () => {
      const b = await setup();
      const payment = await create(b, { amount: 5_000_000, invoice_reference: 'INV-2026-0001' });
      expect(payment).toEqual({
        id: expect.stringMatching(/^spay_[0-9A-Za-z]{20,}$/),
        object: 'supplier_payment',
        status: 'awaiting_approval',
        decline_reason: null,
        payer_connection: b.business,
        beneficiary: b.beneficiary,
        amount: 5_000_000,
        currency: 'DZD',
        invoice_reference: 'INV-2026-0001',
        description: 'November supplies',
        approval_url: `${PUBLIC_BASE_URL}/hosted/supplier_payments/${payment.id}`,
        fee_amount: null,
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        approved_at: null,
        succeeded_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).toBe(7 * DAY_S * 1000);
    });

    it('description is optional (null when omitted, or sent as null) and may be 1000 characters', async () => {
      const b = await setup();
      expect((await create(b, { description: undefined })).description).toBeNull();
      expect((await create(b, { description: null })).description).toBeNull();
      expect((await create(b, { description: 'd'.repeat(1000) })).description).toHaveLength(1000);
    });

    it('the page at approval_url answers 200 with an HTML page showing the payment', async () => {
      const b = await setup();
      const payment = await create(b, { description: 'Palettes <bois>' });
      const page = await service.http('GET', new URL(payment.approval_url).pathname);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.body).toMatch(/50[\s\u00a0\u202f]000,00[\s\u00a0]DA/); // French unless the browser asks otherwise
      expect(page.body).toContain(payment.invoice_reference);
      expect(page.body).toContain('Palettes &lt;bois&gt;');
      expect((await service.http('GET', '/hosted/supplier_payments/spay_doesnotexist0000000000000')).status).toBe(404);
    });

    const shapeCases: [string, Record<string, unknown>, string, string][] = [
      ['payer_connection missing', { payer_connection: undefined }, 'invalid_request', 'payer_connection'],
      ['beneficiary missing', { beneficiary: undefined }, 'invalid_request', 'beneficiary'],
      ['amount missing', { amount: undefined }, 'invalid_request', 'amount'],
      ['amount null', { amount: null }, 'invalid_request', 'amount'],
      ['currency missing', { currency: undefined }, 'invalid_request', 'currency'],
      ['invoice_reference missing', { invoice_reference: undefined }, 'invalid_request', 'invoice_reference'],
      ['invoice_reference null', { invoice_reference: null }, 'invalid_request', 'invoice_reference'],
      ['invoice_reference empty', { invoice_reference: '' }, 'invalid_request', 'invoice_reference'],
      ['invoice_reference of 256 characters', { invoice_reference: 'i'.repeat(256) }, 'invalid_request', 'invoice_reference'],
      ['invoice_reference a number', { invoice_reference: 12 }, 'invalid_request', 'invoice_reference'],
      ['beneficiary a number', { beneficiary: 7 }, 'invalid_request', 'beneficiary'],
      ['description empty', { description: '' }, 'invalid_request', 'description'],
      ['description of 1001 characters', { description: 'd'.repeat(1001) }, 'invalid_request', 'description'],
      ['description not a string', { description: { text: 'x' } }, 'invalid_request', 'description'],
      ['an unknown parameter', { fee_amount: 10 }, 'invalid_request', 'fee_amount'],
      ['amount 0', { amount: 0 }, 'invalid_amount', 'amount'],
      ['amount negative', { amount: -5 }, 'invalid_amount', 'amount'],
      ['amount not an integer', { amount: 10.5 }, 'invalid_amount', 'amount'],
      ['amount a string', { amount: '5000' }, 'invalid_amount', 'amount'],
      ['amount above 100000000000', { amount: 100_000_000_001 }, 'invalid_amount', 'amount'],
      ['currency EUR', { currency: 'EUR' }, 'unsupported_currency', 'currency'],
      ['currency lower case', { currency: 'dzd' }, 'unsupported_currency', 'currency'],
    ];
    it.each(shapeCases.map(([name, overrides, code, param]) => [name, code, param, overrides] as const))('%s: 400 %s (param %s)', async (_case, code, param, overrides) => {
      const b = await setup();
      expectError(await post(b, body(b, overrides)), 400, code, param);
    });

    it('a body that is not a JSON object is 400 invalid_request', async () => {
      const b = await setup();
      for (const rawBody of ['[]', '"x"', 'null', '{']) {
        expectError(await service.http('POST', '/v1/supplier_payments', { key: b.shop.apiKey, rawBody, headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_request');
      }
    });

    it("a payer_connection that is not the caller's (another integrator's, or unknown) is 403 connection_not_authorized", async () => {
      const b = await setup();
      const other = await setup();
      expectError(await post(b, body(b, { payer_connection: other.business, beneficiary: other.beneficiary })), 403, 'connection_not_authorized', 'payer_connection');
      expectError(await post(b, body(b, { payer_connection: 'conn_doesnotexist00000000000' })), 403, 'connection_not_authorized', 'payer_connection');
    });

    it('a beneficiary that does not exist, is revoked, or belongs to another business is 403 beneficiary_not_authorized', async () => {
      const b = await setup();
      const revoked = await createBeneficiary(b.business);
      await revoke(revoked);
      const secondBusiness = await createBusinessConnection(b.shop);
      const ofSecondBusiness = await createBeneficiary(secondBusiness);
      const other = await setup();
      for (const beneficiary of ['ben_doesnotexist000000000000', revoked, ofSecondBusiness, other.beneficiary]) {
        expectError(await post(b, body(b, { beneficiary })), 403, 'beneficiary_not_authorized', 'beneficiary');
      }
    });

    it("a currency other than the payer connection's account: 400 currency_mismatch", async () => {
      const b = await setup();
      const madBeneficiary = await createBeneficiary(b.business, 'MAD');
      expectError(await post(b, body(b, { currency: 'MAD', beneficiary: madBeneficiary })), 400, 'currency_mismatch', 'currency');
    });

    it("a currency other than the beneficiary's account: 400 currency_mismatch", async () => {
      const b = await setup();
      const madBeneficiary = await createBeneficiary(b.business, 'MAD');
      expectError(await post(b, body(b, { currency: 'DZD', beneficiary: madBeneficiary })), 400, 'currency_mismatch', 'currency');
    });

    it('validation order: authentication, body shape, connection, beneficiary, then currency_mismatch', async () => {
      const b = await setup();
      const other = await setup();
      const revoked = await createBeneficiary(b.business);
      await revoke(revoked);
      // authentication before the body
      expectError(await service.http('POST', '/v1/supplier_payments', { body: { amount: 0 } }), 401, 'authentication_required');
      // body shape before authorization
      expectError(await post(b, body(b, { amount: 0, payer_connection: other.business })), 400, 'invalid_amount');
      expectError(await post(b, body(b, { currency: 'EUR', beneficiary: 'ben_doesnotexist000000000000' })), 400, 'unsupported_currency');
      // the connection before the beneficiary
      expectError(await post(b, body(b, { payer_connection: other.business, beneficiary: 'ben_doesnotexist000000000000' })), 403, 'connection_not_authorized');
      // the beneficiary before currency_mismatch
      expectError(await post(b, body(b, { beneficiary: revoked, currency: 'MAD' })), 403, 'beneficiary_not_authorized');
    });

    it('Idempotency-Key: the same key and body answer the original (Idempotent-Replayed: true), no second payment', async () => {
      const b = await setup();
      const key = idempotencyKey();
      const payload = body(b);
      const first = await post(b, payload, { 'Idempotency-Key': key });
      expect(first.status).toBe(201);
      const again = await post(b, payload, { 'Idempotency-Key': key });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(ids(await list(b, `?invoice_reference=${payload.invoice_reference}`))).toEqual([first.body.id]);
    });

    it('Idempotency-Key: the same key with another body is 409 idempotency_key_reused', async () => {
      const b = await setup();
      const key = idempotencyKey();
      expect((await post(b, body(b), { 'Idempotency-Key': key })).status).toBe(201);
      expectError(await post(b, body(b, { amount: 1_000 }), { 'Idempotency-Key': key }), 409, 'idempotency_key_reused');
    });

    it('Idempotency-Key: a request that failed validation stores no result; without a key two creates are two payments', async () => {
      const b = await setup();
      const key = idempotencyKey();
      const payload = body(b);
      expectError(await post(b, { ...payload, beneficiary: 'ben_doesnotexist000000000000' }, { 'Idempotency-Key': key }), 403, 'beneficiary_not_authorized');
      const fixed = await post(b, payload, { 'Idempotency-Key': key });
      expect(fixed.status).toBe(201);
      expect(fixed.headers.get('idempotent-replayed')).toBeNull();
      const first = await post(b, payload);
      const second = await post(b, payload);
      expect(first.body.id).not.toBe(second.body.id);
      expectError(await post(b, payload, { 'Idempotency-Key': 'k'.repeat(256) }), 400, 'invalid_request', 'Idempotency-Key');
    });
  });

  describe('retrieve and cancel', () => {
    it('retrieve returns the same payment; an unknown id is 404 resource_not_found', async () => {
      const b = await setup();
      const payment = await create(b);
      expect(await get(b, payment.id)).toMatchObject({ status: 200, body: payment });
      expectError(await get(b, 'spay_doesnotexist0000000000000'), 404, 'resource_not_found');
    });

    it("another integrator's payment is 404 on retrieve, cancel and the helpers, and absent from its list", async () => {
      const b = await setup();
      const other = await setup();
      const payment = await create(b);
      expectError(await get(other, payment.id), 404, 'resource_not_found');
      for (const name of ['cancel', 'approve', 'reject'] as const) expectError(await action(other, payment.id, name), 404, 'resource_not_found');
      expect(ids(await list(other))).toEqual([]);
      expectError(await list(other, `?starting_after=${payment.id}`), 400, 'invalid_request', 'starting_after');
      expect((await get(b, payment.id)).body.status).toBe('awaiting_approval');
    });

    it('cancel a payment awaiting approval: 200 with status canceled, approval_url null', async () => {
      const b = await setup();
      const payment = await create(b);
      const response = await action(b, payment.id, 'cancel');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: payment.id, status: 'canceled', approval_url: null, fee_amount: null });
      expect((await get(b, payment.id)).body.status).toBe('canceled');
    });

    it('a body on cancel is 400 invalid_request', async () => {
      const b = await setup();
      const payment = await create(b);
      const response = await service.http('POST', `/v1/supplier_payments/${payment.id}/cancel`, { key: b.shop.apiKey, body: { reason: 'x' } });
      expectError(response, 400, 'invalid_request', 'reason');
    });
  });

  describe('approval (sandbox helpers approve and reject)', () => {
    it('approve with sufficient balance: succeeded; business debited amount + fee, supplier credited amount, fee to the platform, in one transfer', async () => {
      const b = await setup();
      await fund(b.business, 10_000_000);
      const payment = await create(b, { amount: 5_000_000 });
      const approved = await action(b, payment.id, 'approve');
      expect(approved.status).toBe(200);
      const fee = feeOf(5_000_000);
      expect(approved.body).toMatchObject({ status: 'succeeded', decline_reason: null, approval_url: null, fee_amount: fee });
      expect(approved.body.approved_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(approved.body.succeeded_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(await balanceOf(service, b.business)).toBe(10_000_000 - 5_000_000 - fee);
      expect(await balanceOf(service, b.beneficiary)).toBe(5_000_000);

      const entries = await entriesOf(payment.id);
      expect(entries).toHaveLength(1);
      expect(entries[0].postings).toHaveLength(3);
      expect(entries[0].postings).toEqual(
        expect.arrayContaining([
          { account: b.business, direction: 'debit', amount: 5_000_000 + fee, currency: 'DZD' },
          { account: b.beneficiary, direction: 'credit', amount: 5_000_000, currency: 'DZD' },
          { account: 'platform:fees:DZD', direction: 'credit', amount: fee, currency: 'DZD' },
        ]),
      );
      expect((await get(b, payment.id)).body).toEqual(approved.body);
      await expectBalancedTrialBalance(service);
    });

    it('approve, reject or cancel a final payment: 409 invalid_status; the money moved exactly once', async () => {
      const b = await setup();
      await fund(b.business, 10_000_000);
      const payment = await create(b, { amount: 1_000_000 });
      expect((await action(b, payment.id, 'approve')).body.status).toBe('succeeded');
      for (const name of ['approve', 'reject', 'cancel'] as const) expectError(await action(b, payment.id, name), 409, 'invalid_status');
      expect(await entriesOf(payment.id)).toHaveLength(1);
      expect(await balanceOf(service, b.business)).toBe(10_000_000 - 1_000_000 - feeOf(1_000_000));
    });

    it('balance insufficient (amount + fee above the balance): declined with insufficient_balance, nothing moves', async () => {
      const b = await setup();
      await fund(b.business, 5_000_000); // the amount, but not the fee on top
      const payment = await create(b, { amount: 5_000_000 });
      const response = await action(b, payment.id, 'approve');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'declined', decline_reason: 'insufficient_balance', approval_url: null, fee_amount: null, succeeded_at: null });
      expect(await balanceOf(service, b.business)).toBe(5_000_000);
      expect(await balanceOf(service, b.beneficiary)).toBe(0);
      expect(await entriesOf(payment.id)).toEqual([]);
    });

    it('beneficiary revoked since creation: declined with beneficiary_unavailable, nothing moves', async () => {
      const b = await setup();
      await fund(b.business, 10_000_000);
      const payment = await create(b);
      await revoke(b.beneficiary);
      const response = await action(b, payment.id, 'approve');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'declined', decline_reason: 'beneficiary_unavailable', approval_url: null, fee_amount: null });
      expect(await balanceOf(service, b.business)).toBe(10_000_000);
      expect(await entriesOf(payment.id)).toEqual([]);
    });

    it('the approver rejects: rejected, approval_url null, nothing moves; a final payment is 409 invalid_status', async () => {
      const b = await setup();
      await fund(b.business, 10_000_000);
      const payment = await create(b);
      const response = await action(b, payment.id, 'reject');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'rejected', decline_reason: null, approval_url: null, fee_amount: null, approved_at: null });
      for (const name of ['approve', 'reject', 'cancel'] as const) expectError(await action(b, payment.id, name), 409, 'invalid_status');
      const canceled = await create(b);
      await action(b, canceled.id, 'cancel');
      for (const name of ['approve', 'reject', 'cancel'] as const) expectError(await action(b, canceled.id, name), 409, 'invalid_status');
      expect(await balanceOf(service, b.business)).toBe(10_000_000);
    });
  });

  describe('GET /v1/supplier_payments (the list)', () => {
    it('an empty list: {object: list, data: [], has_more: false}', async () => {
      const b = await setup();
      expect(await list(b)).toMatchObject({ status: 200, body: { object: 'list', data: [], has_more: false } });
    });

    it('newest first; limit and starting_after page through it; exact page size has has_more false; after the last item, empty', async () => {
      const b = await setup();
      const created = [];
      for (let i = 0; i < 3; i++) created.push((await create(b)).id);
      const [a, bb, c] = created;
      const firstPage = await list(b, '?limit=2');
      expect(firstPage.body).toMatchObject({ object: 'list', has_more: true });
      expect(ids(firstPage)).toEqual([c, bb]);
      const secondPage = await list(b, `?limit=2&starting_after=${bb}`);
      expect(secondPage.body).toMatchObject({ object: 'list', has_more: false });
      expect(ids(secondPage)).toEqual([a]);
      const exact = await list(b, '?limit=3');
      expect(exact.body.has_more).toBe(false);
      expect(ids(exact)).toEqual([c, bb, a]);
      expect((await list(b, `?starting_after=${a}`)).body).toEqual({ object: 'list', data: [], has_more: false });
      expect((await list(b)).body.data[0]).toEqual((await get(b, c!)).body);
    });

    it('limit defaults to 10 and may be 100', async () => {
      const b = await setup();
      await Promise.all(Array.from({ length: 11 }, () => create(b, { amount: 1_000 })));
      const page = await list(b);
      expect(page.body.data).toHaveLength(10);
      expect(page.body.has_more).toBe(true);
      const all = await list(b, '?limit=100');
      expect(all.body.data).toHaveLength(11);
      expect(all.body.has_more).toBe(false);
    });

    it('filters invoice_reference and status', async () => {
      const b = await setup();
      const first = await create(b, { invoice_reference: 'INV-A' });
      const second = await create(b, { invoice_reference: 'INV-A' });
      const other = await create(b, { invoice_reference: 'INV-B' });
      await action(b, second.id, 'cancel');
      expect(ids(await list(b, '?invoice_reference=INV-A'))).toEqual([second.id, first.id]);
      expect(ids(await list(b, '?status=canceled'))).toEqual([second.id]);
      expect(ids(await list(b, '?status=awaiting_approval'))).toEqual([other.id, first.id]);
      expect(ids(await list(b, '?invoice_reference=INV-A&status=awaiting_approval'))).toEqual([first.id]);
      expect(ids(await list(b, '?invoice_reference=INV-NONE'))).toEqual([]);
      expect(ids(await list(b, '?status=succeeded'))).toEqual([]);
      expect((await list(b, '?status=canceled')).body.data[0]).toMatchObject({ id: second.id, status: 'canceled' });
    });

    it('a starting_after of another invoice reference is 400; one whose status the filter no longer keeps pages on', async () => {
      const b = await setup();
      const first = await create(b, { invoice_reference: 'INV-C' });
      const other = await create(b, { invoice_reference: 'INV-D' });
      const second = await create(b, { invoice_reference: 'INV-C' });
      expectError(await list(b, `?invoice_reference=INV-C&starting_after=${other.id}`), 400, 'invalid_request', 'starting_after');
      expect(ids(await list(b, `?invoice_reference=INV-C&starting_after=${second.id}`))).toEqual([first.id]);
      await action(b, second.id, 'cancel');
      expect(ids(await list(b, `?status=awaiting_approval&starting_after=${second.id}`))).toEqual([other.id, first.id]);
    });

    it.each([
      ['limit=0'],
      ['limit=101'],
      ['limit=abc'],
      ['limit=1.5'],
      ['status=pending'],
      ['status=SUCCEEDED'],
      ['starting_after=spay_doesnotexist0000000000000'],
      ['starting_after=not-an-id'],
      ['invoice_reference='],
      ['color=red'],
    ])('?%s is 400 invalid_request', async (query) => {
      const b = await setup();
      await create(b);
      expectError(await list(b, `?${query}`), 400, 'invalid_request');
    });

    it('after a time-out the client finds the payment by invoice_reference, and does not pay the invoice twice', async () => {
      const b = await setup();
      const invoice = `INV-TIMEOUT-${invoiceCounter++}`;
      // The client sends the create; the answer never reaches it (its body is dropped unread, as after a time-out).
      const sent = await fetch(`${service.url}/v1/supplier_payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${b.shop.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body(b, { invoice_reference: invoice })),
      });
      await sent.body?.cancel();
      // "Does a payment exist for this invoice?"
      const found = await list(b, `?invoice_reference=${invoice}`);
      expect(found.status).toBe(200);
      expect(found.body.data).toHaveLength(1);
      const [payment] = found.body.data;
      expect(payment).toMatchObject({ object: 'supplier_payment', invoice_reference: invoice, status: 'awaiting_approval', payer_connection: b.business });
      // It exists and is not final: the client follows it instead of creating another one.
      expect((await get(b, payment.id)).body).toEqual(payment);
      // For an invoice never sent, the list is empty: creating is then safe.
      expect((await list(b, `?invoice_reference=${invoice}-never-sent`)).body).toEqual({ object: 'list', data: [], has_more: false });
    });
  });

  describe('events', () => {
    it('every status reached after creation is an event, delivered signed; supplier_payment.succeeded carries the spec payload', async () => {
      const b = await setup();
      await fund(b.business, 3_000_000);
      const hook = await new Receiver().start();
      receivers.push(hook);
      const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: b.shop.apiKey, body: { url: hook.url, enabled_events: ['*'] } });
      expect(endpoint.status).toBe(201);

      const succeeded = (await action(b, (await create(b, { amount: 1_000_000 })).id, 'approve')).body;
      const declined = (await action(b, (await create(b, { amount: 9_000_000 })).id, 'approve')).body;
      const rejected = (await action(b, (await create(b)).id, 'reject')).body;
      const canceled = (await action(b, (await create(b)).id, 'cancel')).body;
      expect([succeeded.status, declined.status, rejected.status, canceled.status]).toEqual(['succeeded', 'declined', 'rejected', 'canceled']);

      await hook.waitFor(4);
      const byObject = Object.fromEntries(hook.events().map((e) => [e.data.id, e]));
      expect(byObject[succeeded.id]).toMatchObject({ object: 'event', type: 'supplier_payment.succeeded' });
      expect(byObject[succeeded.id]!.data).toEqual({ ...succeeded, object_version: 3 });
      expect(byObject[succeeded.id]!.data).toMatchObject({
        id: succeeded.id,
        object: 'supplier_payment',
        status: 'succeeded',
        payer_connection: b.business,
        beneficiary: b.beneficiary,
        amount: 1_000_000,
        currency: 'DZD',
        invoice_reference: succeeded.invoice_reference,
        fee_amount: feeOf(1_000_000),
        approved_at: succeeded.approved_at,
        succeeded_at: succeeded.succeeded_at,
      });
      expect(byObject[declined.id]).toMatchObject({ type: 'supplier_payment.declined', data: { status: 'declined', decline_reason: 'insufficient_balance' } });
      expect(byObject[rejected.id]).toMatchObject({ type: 'supplier_payment.rejected', data: { status: 'rejected', object_version: 2 } });
      expect(byObject[canceled.id]).toMatchObject({ type: 'supplier_payment.canceled', data: { status: 'canceled', object_version: 2 } });

      const delivery = hook.received.find((r) => JSON.parse(r.body).data.id === succeeded.id)!;
      expect(() => new Webhook(endpoint.body.secret).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      const eventId = byObject[succeeded.id]!.id;
      expect((await service.http('GET', `/v1/events/${eventId}`, { key: b.shop.apiKey })).body).toEqual(byObject[succeeded.id]);
      await hook.stop();
    });
  });

  describe('no business account below zero, under any concurrency', () => {
    it('a business funded for 10 payments (amount + fee) approves 20 at once: 10 succeed, 10 decline insufficient_balance, balance 0', async () => {
      const b = await setup();
      const amount = 100_000;
      const fee = feeOf(amount);
      await fund(b.business, (amount + fee) * 10);
      const payments = await Promise.all(Array.from({ length: 20 }, () => create(b, { amount })));
      const responses = await Promise.all(payments.map((p) => action(b, p.id, 'approve')));
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      const outcomes = responses.map((r) => `${r.body.status}:${r.body.decline_reason}`);
      expect(outcomes.filter((s) => s === 'succeeded:null')).toHaveLength(10);
      expect(outcomes.filter((s) => s === 'declined:insufficient_balance')).toHaveLength(10);
      expect(await balanceOf(service, b.business)).toBe(0);
      expect(await balanceOf(service, b.beneficiary)).toBe(amount * 10);
      let fees = 0;
      for (const response of responses) {
        const entries = await entriesOf(response.body.id);
        if (response.body.status === 'declined') {
          expect(entries).toEqual([]);
          continue;
        }
        expect(entries).toHaveLength(1);
        fees += entries[0].postings.find((p: { account: string }) => p.account === 'platform:fees:DZD').amount;
      }
      expect(fees).toBe(fee * 10);
      await expectBalancedTrialBalance(service);
    });

    it('one payment approved 10 times at once is debited once', async () => {
      const b = await setup();
      await fund(b.business, 100_000_000);
      const payment = await create(b, { amount: 2_000_000 });
      const responses = await Promise.all(Array.from({ length: 10 }, () => action(b, payment.id, 'approve')));
      expect(responses.filter((r) => r.status === 200 && r.body.status === 'succeeded')).toHaveLength(1);
      for (const r of responses.filter((r) => r.status !== 200)) expect(r.body.error.code).toBe('invalid_status');
      expect(await balanceOf(service, b.business)).toBe(100_000_000 - 2_000_000 - feeOf(2_000_000));
      expect(await entriesOf(payment.id)).toHaveLength(1);
    });

    it('cancel racing approve: never both, the loser gets invalid_status', async () => {
      const b = await setup();
      await fund(b.business, 100_000_000);
      for (let round = 0; round < 8; round++) {
        const payment = await create(b, { amount: 1_000 });
        const [cancel, approve] = await Promise.all([action(b, payment.id, 'cancel'), action(b, payment.id, 'approve')]);
        const winners = [cancel, approve].filter((r) => r.status === 200);
        expect(winners).toHaveLength(1);
        for (const loser of [cancel, approve].filter((r) => r.status !== 200)) expect(loser.body.error.code).toBe('invalid_status');
        const final = await get(b, payment.id);
        expect(final.body.status).toBe(cancel.status === 200 ? 'canceled' : 'succeeded');
        expect(await entriesOf(payment.id)).toHaveLength(cancel.status === 200 ? 0 : 1);
      }
      await expectBalancedTrialBalance(service);
    });
  });

  // Last: moving the service clock 7 days ages every payment of this file.
  describe('approval deadline (7 days, on the service clock)', () => {
    it('a payment not approved by expires_at is expired (event supplier_payment.expired); then approve and cancel are 409', async () => {
      const b = await setup();
      await fund(b.business, 10_000_000);
      const payment = await create(b);
      const approvedInTime = await create(b);
      await advance(b, 7 * DAY_S - 60);
      expect((await get(b, payment.id)).body.status).toBe('awaiting_approval');
      expect((await action(b, approvedInTime.id, 'approve')).body.status).toBe('succeeded');
      await advance(b, 60);
      const expired = await get(b, payment.id);
      expect(expired.body).toMatchObject({ status: 'expired', approval_url: null, fee_amount: null, approved_at: null });
      expect((await get(b, approvedInTime.id)).body.status).toBe('succeeded');
      expect(ids(await list(b, '?status=expired'))).toEqual([payment.id]);
      for (const name of ['approve', 'reject', 'cancel'] as const) expectError(await action(b, payment.id, name), 409, 'invalid_status');
      expect(await balanceOf(service, b.business)).toBe(10_000_000 - 5_000_000 - feeOf(5_000_000));

      const events = await service.http('GET', '/v1/events?limit=100', { key: b.shop.apiKey });
      const expiredEvent = events.body.data.find((e: { type: string; data: { id: string } }) => e.data.id === payment.id);
      expect(expiredEvent).toMatchObject({ type: 'supplier_payment.expired', data: { status: 'expired', object_version: 2 } });
      await expectBalancedTrialBalance(service);
    });
  });
});
