import { createCashPoint, createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

/** Lists of payments, cash payments, collections and events: envelope, filters, pagination, isolation. */
describe('lists', () => {
  let service: TestService;
  let shop: Integrator;
  let other: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    other = await createIntegrator(service);
  });
  afterAll(() => service.stop());

  const list = async (path: string, key = shop.apiKey) => {
    const response = await service.http('GET', path, { key });
    return response;
  };
  const ids = (response: { body: { data: Array<{ id: string }> } }) => response.body.data.map((item) => item.id);

  describe('GET /v1/payments', () => {
    let created: any[];
    let customer: string;
    let secondMerchant: string;

    beforeAll(async () => {
      customer = await createCustomer(service, 10_000_000);
      const connection = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'merchant', name: 'Second shop', currency: 'DZD' } });
      secondMerchant = connection.body.id;
      created = [];
      for (let i = 0; i < 5; i++) created.push(await createPayment(service, shop, { order_reference: `list-order-${i % 2}` }));
      created.push(await createPayment(service, { ...shop, merchant: secondMerchant }, { order_reference: 'list-order-second' }));
      const authorized = await service.http('POST', `/v1/test_helpers/payments/${created[1].id}/authorize`, { key: shop.apiKey, body: { customer } });
      expect(authorized.body.status).toBe('succeeded');
      await createPayment(service, other);
    });

    it('answers the list envelope, newest first, own payments only, each as the retrieve answers it', async () => {
      const response = await list('/v1/payments?limit=100');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ object: 'list', has_more: false });
      expect(ids(response)).toEqual(created.map((p) => p.id).reverse());
      const retrieved = await service.http('GET', `/v1/payments/${created[1].id}`, { key: shop.apiKey });
      expect(response.body.data.find((p: any) => p.id === created[1].id)).toEqual(retrieved.body);
    });

    it('defaults to 10, pages with starting_after and has_more', async () => {
      const first = await list('/v1/payments?limit=2');
      expect(ids(first)).toEqual([created[5].id, created[4].id]);
      expect(first.body.has_more).toBe(true);
      const second = await list(`/v1/payments?limit=2&starting_after=${created[4].id}`);
      expect(ids(second)).toEqual([created[3].id, created[2].id]);
      const last = await list(`/v1/payments?limit=2&starting_after=${created[2].id}`);
      expect(ids(last)).toEqual([created[1].id, created[0].id]);
      expect(last.body.has_more).toBe(false);
    });

    it('filters by status, order_reference, merchant_connection', async () => {
      expect(ids(await list('/v1/payments?status=succeeded'))).toEqual([created[1].id]);
      expect(ids(await list('/v1/payments?order_reference=list-order-0'))).toEqual([created[4].id, created[2].id, created[0].id]);
      expect(ids(await list(`/v1/payments?merchant_connection=${secondMerchant}`))).toEqual([created[5].id]);
      expect(ids(await list('/v1/payments?status=pending&order_reference=list-order-1'))).toEqual([created[3].id]);
    });

    it('filters by creation time, created_gte inclusive and created_lt exclusive', async () => {
      const at = created[2].created_at;
      expect(ids(await list(`/v1/payments?created_gte=${at}&limit=100`))).toEqual(created.slice(2).map((p) => p.id).reverse());
      expect(ids(await list(`/v1/payments?created_lt=${at}&limit=100`))).toEqual(created.slice(0, 2).map((p) => p.id).reverse());
    });

    it('a bound with digits below the millisecond: a payment created at …14.318Z is before created_gte=…14.3189Z and before created_lt=…14.3189Z', async () => {
      const bound = String(created[2].created_at).replace(/Z$/, '9Z');
      expect(ids(await list(`/v1/payments?created_gte=${bound}&limit=100`))).toEqual(created.slice(3).map((p) => p.id).reverse());
      expect(ids(await list(`/v1/payments?created_lt=${bound}&limit=100`))).toEqual(created.slice(0, 3).map((p) => p.id).reverse());
    });

    it.each([
      ['an unknown status', 'status=paid', 'status'],
      ['a time that is not ISO 8601', 'created_gte=yesterday', 'created_gte'],
      ['an unknown parameter', 'colour=blue', 'colour'],
      ['a limit above 100', 'limit=101', 'limit'],
      ['a starting_after of another integrator', 'starting_after=PLACEHOLDER', 'starting_after'],
    ])('%s is 400 invalid_request', async (_case, query, param) => {
      const otherPayment = (await list('/v1/payments', other.apiKey)).body.data[0].id;
      const response = await list(`/v1/payments?${query.replace('PLACEHOLDER', otherPayment)}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
    });

    it('a starting_after outside the filtered list is 400; one whose status the filter no longer keeps pages on', async () => {
      const outside = [
        `merchant_connection=${secondMerchant}&starting_after=${created[4].id}`,
        `order_reference=list-order-0&starting_after=${created[3].id}`,
        `created_gte=${created[2].created_at}&starting_after=${created[1].id}`,
        `created_lt=${created[2].created_at}&starting_after=${created[3].id}`,
      ];
      for (const query of outside) {
        const response = await list(`/v1/payments?${query}`);
        expect({ query, status: response.status, error: response.body.error }).toEqual({ query, status: 400, error: expect.objectContaining({ code: 'invalid_request', param: 'starting_after' }) });
      }
      expect(ids(await list(`/v1/payments?order_reference=list-order-0&starting_after=${created[4].id}`))).toEqual([created[2].id, created[0].id]);
      expect(ids(await list(`/v1/payments?status=pending&starting_after=${created[1].id}`))).toEqual([created[0].id]);
    });

    it('another integrator sees only its own', async () => {
      const response = await list('/v1/payments', other.apiKey);
      expect(response.body.data).toHaveLength(1);
      expect(ids(response)).not.toContain(created[0].id);
    });
  });

  describe('GET /v1/cash_payments', () => {
    let created: any[];
    beforeAll(async () => {
      created = [];
      for (let i = 0; i < 3; i++) {
        const response = await service.http('POST', '/v1/cash_payments', {
          key: shop.apiKey,
          body: { amount: 50_000, currency: 'DZD', order_reference: `cash-${i}`, merchant_connection: shop.merchant },
          headers: { 'Idempotency-Key': idempotencyKey() },
        });
        expect(response.status).toBe(201);
        created.push(response.body);
      }
      const canceled = await service.http('POST', `/v1/cash_payments/${created[0].id}/cancel`, { key: shop.apiKey });
      expect(canceled.body.status).toBe('canceled');
    });

    it('lists newest first with filters on status, order_reference and payment_reference', async () => {
      expect(ids(await list('/v1/cash_payments'))).toEqual(created.map((p) => p.id).reverse());
      expect(ids(await list('/v1/cash_payments?status=canceled'))).toEqual([created[0].id]);
      expect(ids(await list('/v1/cash_payments?status=awaiting_payment'))).toEqual([created[2].id, created[1].id]);
      expect(ids(await list('/v1/cash_payments?order_reference=cash-1'))).toEqual([created[1].id]);
      expect(ids(await list(`/v1/cash_payments?payment_reference=${created[2].payment_reference}`))).toEqual([created[2].id]);
      expect((await list('/v1/cash_payments?status=pending')).status).toBe(400);
      expect((await list('/v1/cash_payments', other.apiKey)).body.data).toEqual([]);
      expect((await list(`/v1/cash_payments?order_reference=cash-1&starting_after=${created[2].id}`)).body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
      expect((await list(`/v1/cash_payments?payment_reference=${created[2].payment_reference}&starting_after=${created[1].id}`)).status).toBe(400);
    });
  });

  describe('GET /v1/collections', () => {
    let created: any[];
    beforeAll(async () => {
      const wholesaler = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'wholesaler', name: 'Wholesaler', currency: 'DZD' } });
      expect(wholesaler.status).toBe(201);
      await createCashPoint(service);
      created = [];
      for (let i = 0; i < 3; i++) {
        const response = await service.http('POST', '/v1/collections', {
          key: shop.apiKey,
          body: { amount: 30_000, currency: 'DZD', order_reference: `col-${i}`, beneficiary_connection: wholesaler.body.id },
          headers: { 'Idempotency-Key': idempotencyKey() },
        });
        expect(response.status).toBe(201);
        created.push(response.body);
      }
      const collected = await service.http('POST', `/v1/test_helpers/collections/${created[1].id}/confirm_handover`, { key: shop.apiKey });
      expect(collected.body).toMatchObject({ status: 'collected_awaiting_deposit' });
    });

    it('lists newest first with filters on status and order_reference', async () => {
      expect(ids(await list('/v1/collections'))).toEqual(created.map((c) => c.id).reverse());
      expect(ids(await list('/v1/collections?status=collected_awaiting_deposit'))).toEqual([created[1].id]);
      const retrieved = await service.http('GET', `/v1/collections/${created[1].id}`, { key: shop.apiKey });
      expect((await list('/v1/collections?status=collected_awaiting_deposit')).body.data[0]).toEqual(retrieved.body);
      expect(ids(await list('/v1/collections?order_reference=col-2'))).toEqual([created[2].id]);
      expect((await list('/v1/collections?status=settledd')).status).toBe(400);
      expect((await list(`/v1/collections?order_reference=col-2&starting_after=${created[1].id}`)).body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
    });
  });

  describe('GET /v1/events filters', () => {
    it('filters by type and object_id; an unknown type is 400', async () => {
      const all = (await list('/v1/events?limit=100')).body.data;
      expect(all.length).toBeGreaterThan(0);
      const succeeded = await list('/v1/events?type=payment.succeeded');
      expect(succeeded.body.data.length).toBeGreaterThan(0);
      expect(succeeded.body.data.every((e: any) => e.type === 'payment.succeeded')).toBe(true);
      const objectId = all[0].data.id;
      const byObject = await list(`/v1/events?object_id=${objectId}`);
      expect(byObject.body.data.length).toBeGreaterThan(0);
      expect(byObject.body.data.every((e: any) => e.data.id === objectId)).toBe(true);
      expect((await list('/v1/events?type=payment.paid')).status).toBe(400);
      const future = new Date(Date.now() + 365 * 86_400_000).toISOString();
      expect((await list(`/v1/events?created_gte=${future}`)).body.data).toEqual([]);
      expect((await list(`/v1/events?created_lt=${future}&limit=100`)).body.data).toHaveLength(all.length);
    });
  });

  describe('GET /v1/events starting_after', () => {
    it('a starting_after outside the filtered list (another type, another object) is 400', async () => {
      const canceled = [];
      for (let i = 0; i < 2; i++) {
        const payment = await createPayment(service, shop);
        expect((await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey })).body.status).toBe('canceled');
        canceled.push(payment.id);
      }
      const events = (await list('/v1/events?type=payment.canceled&limit=2')).body.data;
      expect(events.map((e: any) => e.data.id)).toEqual([...canceled].reverse());
      const [second, first] = events;
      expect((await list(`/v1/events?type=payment.succeeded&starting_after=${second.id}`)).body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
      expect((await list(`/v1/events?object_id=${canceled[1]}&starting_after=${first.id}`)).body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
      expect(ids(await list(`/v1/events?type=payment.canceled&starting_after=${second.id}&limit=1`))).toEqual([first.id]);
    });
  });

  describe('created_gte and created_lt outside years 0001 to 9999', () => {
    const lists = (integrator: Integrator): Array<[string, (query: string) => Promise<{ status: number; body: any }>]> =>
      ['/v1/events', '/v1/payments', '/v1/cash_payments', '/v1/collections', '/v1/payouts', '/v1/audit_events', `/v1/balance_transactions?connection=${integrator.merchant}&`]
        .map((path): [string, (query: string) => Promise<{ status: number; body: any }>] => [path, (query) => list(`${path}${path.endsWith('&') ? '' : '?'}${query}`)])
        .concat([['/admin/v1/audit_events', (query) => service.admin('GET', `/admin/v1/audit_events?${query}`)]]);

    it.each([
      ['year 0000', 'created_lt', '0000-01-01T00:00:00Z'],
      ['year 0000 on February 29', 'created_gte', '0000-02-29T00:00:00Z'],
      ['year 0001 whose zone takes it into year 0000', 'created_gte', '0001-01-01T00:30:00%2B01:00'],
      ['year 9999 whose zone takes it into year 10000', 'created_lt', '9999-12-31T23:30:00-01:00'],
    ])('%s is 400 invalid_request naming the parameter on every list', async (_case, param, value) => {
      for (const [path, get] of lists(shop)) {
        const response = await get(`${param}=${value}`);
        expect({ path, status: response.status, error: response.body.error }).toEqual({ path, status: 400, error: expect.objectContaining({ code: 'invalid_request', param }) });
      }
    });

    it('years 0001 and 0099 to 9999 are times like any other', async () => {
      for (const [path, get] of lists(shop)) {
        for (const query of ['created_gte=0001-01-01T00:00:00Z', 'created_lt=0099-03-01T00:00:00Z', 'created_gte=0004-02-29T00:00:00Z', 'created_lt=9999-12-31T23:59:59.999Z']) {
          const response = await get(query);
          expect({ path, query, status: response.status }).toEqual({ path, query, status: 200 });
        }
      }
      expect((await list('/v1/payments?created_lt=0099-12-31T23:59:59Z')).body.data).toEqual([]);
    });
  });
});
