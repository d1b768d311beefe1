import { balanceOf, createCustomer, createIntegrator, expectBalancedTrialBalance, startTestService, type TestService } from './harness';

describe('contract section 7: the admin API and the ledger', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('integrators: 201 with the secret key shown once, and the key works', async () => {
    const created = await service.admin('POST', '/admin/v1/integrators', { body: { name: 'Souk' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'integrator', name: 'Souk' });
    expect(created.body.id).toMatch(/^int_[0-9A-Za-z]{20,}$/);
    expect(created.body.api_key).toMatch(/^sk_[0-9A-Za-z]{20,}$/);
    expect(created.body.api_key_id).toMatch(/^key_[0-9A-Za-z]{20,}$/);
    expect((await service.http('GET', '/v1/payments/pay_x', { key: created.body.api_key })).status).toBe(404);
  });

  it('a second API key for an integrator; revoking one leaves the other working', async () => {
    const shop = await createIntegrator(service);
    const second = await service.admin('POST', `/admin/v1/integrators/${shop.id}/api_keys`);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ object: 'api_key' });
    expect(second.body.id).toMatch(/^key_/);
    expect(second.body.api_key).toMatch(/^sk_/);
    const revoked = await service.admin('POST', `/admin/v1/api_keys/${shop.apiKeyId}/revoke`);
    expect(revoked.status).toBe(200);
    // The API key object (contract section 16), as the integrator's own revoke answers it, with its integrator and revocation time.
    const own = await service.http('GET', `/v1/api_keys/${second.body.id}`, { key: second.body.api_key });
    expect(Object.keys(revoked.body).sort()).toEqual([...Object.keys(own.body), 'integrator', 'revoked_at'].sort());
    expect(revoked.body).toMatchObject({ id: shop.apiKeyId, object: 'api_key', integrator: shop.id, scopes: ['*'], status: 'revoked', expires_at: null });
    expect(revoked.body.redacted).toMatch(/^sk_/);
    expect(Date.parse(revoked.body.revoked_at)).toBeGreaterThanOrEqual(Date.parse(revoked.body.created_at));
    expect(revoked.body).not.toHaveProperty('api_key');
    expect((await service.http('GET', '/v1/payments/pay_x', { key: shop.apiKey })).status).toBe(401);
    expect((await service.http('GET', '/v1/payments/pay_x', { key: second.body.api_key })).status).toBe(404);
    expect((await service.admin('POST', '/admin/v1/integrators/int_unknown0000000000000000/api_keys')).status).toBe(404);
    const unknown = await service.admin('POST', '/admin/v1/api_keys/key_unknown0000000000000000/revoke');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
  });

  it('connections: each kind, with an account in its currency at zero', async () => {
    const shop = await createIntegrator(service);
    for (const kind of ['merchant', 'business', 'wholesaler']) {
      const connection = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name: `A ${kind}`, currency: 'XOF' } });
      expect(connection.status).toBe(201);
      expect(connection.body).toMatchObject({ object: 'connection', integrator: shop.id, kind, name: `A ${kind}`, currency: 'XOF' });
      expect(connection.body.id).toMatch(/^conn_/);
      expect((await service.admin('GET', `/admin/v1/balances/${connection.body.id}`)).body).toEqual({
        object: 'balance',
        owner: connection.body.id,
        currency: 'XOF',
        available: 0,
      });
    }
    const bad = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'bank', name: 'x', currency: 'XOF' } });
    expect(bad.status).toBe(400);
    const unknown = await service.admin('POST', '/admin/v1/connections', { body: { integrator: 'int_nope', kind: 'merchant', name: 'x', currency: 'XOF' } });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', param: 'integrator' });
  });

  it('customers: the PIN is 4 to 6 digits and never shown back', async () => {
    const customer = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Yacine', phone: '+212600000000', pin: '0042', currency: 'MAD' } });
    expect(customer.status).toBe(201);
    expect(customer.body).toEqual({ id: expect.stringMatching(/^cus_/), object: 'customer', name: 'Yacine', phone: '+212600000000', currency: 'MAD', created_at: expect.any(String) });
    for (const pin of ['123', '1234567', '12a4', 1234]) {
      const response = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Y', phone: '+212600000000', pin, currency: 'MAD' } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'pin' });
    }
  });

  it('beneficiaries: created authorized for a business connection, then revoked', async () => {
    const shop = await createIntegrator(service);
    const business = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'business', name: 'Buyer', currency: 'TND' } });
    const beneficiary = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business: business.body.id, account_name: 'Supplier SARL', currency: 'TND' } });
    expect(beneficiary.status).toBe(201);
    expect(beneficiary.body).toMatchObject({ object: 'beneficiary', account_name: 'Supplier SARL', status: 'authorized' });
    expect(beneficiary.body.id).toMatch(/^ben_/);
    const revoked = await service.admin('POST', `/admin/v1/beneficiaries/${beneficiary.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: beneficiary.body.id, status: 'revoked' });
    expect((await service.admin('GET', `/admin/v1/balances/${beneficiary.body.id}`)).body.currency).toBe('TND');
    const notBusiness = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business: shop.merchant, account_name: 'x', currency: 'TND' } });
    expect(notBusiness.body.error).toMatchObject({ code: 'invalid_request', param: 'business' });
  });

  it('cash points: name and address', async () => {
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point Alger Centre', address: '1 rue Didouche Mourad, Alger' } });
    expect(point.status).toBe(201);
    expect(point.body).toMatchObject({ object: 'cash_point', name: 'Point Alger Centre', address: '1 rue Didouche Mourad, Alger' });
    expect(point.body.id).toMatch(/^cp_/);
  });

  it('top-ups credit the account, funded by the platform; a currency other than the account currency is currency_mismatch', async () => {
    const customer = await createCustomer(service, 0, 'TND');
    const topup = await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: 12_345, currency: 'TND' } });
    expect(topup.status).toBe(201);
    expect(topup.body).toMatchObject({ object: 'topup', account: customer, amount: 12_345, currency: 'TND' });
    expect(await balanceOf(service, customer)).toBe(12_345);
    const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${topup.body.id}`);
    expect(entries.body.data[0].postings).toEqual(
      expect.arrayContaining([
        { account: 'platform:funding:TND', direction: 'debit', amount: 12_345, currency: 'TND' },
        { account: customer, direction: 'credit', amount: 12_345, currency: 'TND' },
      ]),
    );
    const mismatch = await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: 1, currency: 'DZD' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('currency_mismatch');
    const badAmount = await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: 0, currency: 'TND' } });
    expect(badAmount.body.error.code).toBe('invalid_amount');
    const unknown = await service.admin('POST', '/admin/v1/topups', { body: { account: 'cus_nobody00000000000000000', amount: 1, currency: 'TND' } });
    expect(unknown.status).toBe(404);
  });

  it('balances of unknown owners and of anything but an owner id, a cash point account or a platform account are 404', async () => {
    for (const owner of ['cus_nobody00000000000000000', 'cp_nowhere0000000000000000:DZD', 'platform:nope:DZD', 'platform:fees:EUR', 'int_x']) {
      expect((await service.admin('GET', `/admin/v1/balances/${encodeURIComponent(owner)}`)).status).toBe(404);
    }
  });

  it('finance reads the platform accounts by name: fees, funding, cash and cash in transit, in every currency', async () => {
    for (const kind of ['fees', 'funding', 'cash', 'cash_in_transit']) {
      for (const currency of ['DZD', 'MAD', 'TND', 'XOF']) {
        const owner = `platform:${kind}:${currency}`;
        const response = await service.admin('GET', `/admin/v1/balances/${encodeURIComponent(owner)}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ object: 'balance', owner, currency, available: expect.any(Number) });
      }
    }
  });

  it('a cash point holds one account per currency: cp_… alone is 400 invalid_request naming the cp_…:<CUR> form', async () => {
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point Annaba', address: 'Annaba' } });
    const response = await service.admin('GET', `/admin/v1/balances/${point.body.id}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'owner' });
    expect(response.body.error.message).toContain(`${point.body.id}:DZD`);
  });

  it('ledger entries require a reference; the trial balance balances in every currency', async () => {
    expect((await service.admin('GET', '/admin/v1/ledger/entries')).body.error).toMatchObject({ code: 'invalid_request', param: 'reference' });
    const none = await service.admin('GET', '/admin/v1/ledger/entries?reference=pay_unknown');
    expect(none.body).toEqual({ object: 'list', data: [], has_more: false });
    await expectBalancedTrialBalance(service);
    const { body } = await service.admin('GET', '/admin/v1/ledger/trial_balance');
    expect(body.currencies.map((c: { currency: string }) => c.currency)).toEqual(expect.arrayContaining(['TND']));
  });

  it('the admin API wants the admin key: none or a wrong one is 401', async () => {
    expect((await service.http('POST', '/admin/v1/integrators', { body: { name: 'x' } })).status).toBe(401);
    expect((await service.http('POST', '/admin/v1/integrators', { key: 'wrong_admin_key_0000000000', body: { name: 'x' } })).status).toBe(401);
  });
});
