import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, screenshot } from './browser';
import { balanceOf, createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';
import { plain } from './hosted-checks';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * The live flows of businesses and cash agents in a real browser (Debian's Chromium): approval_url for
 * supplier payments, and the agents' application at /hosted/agent (cash payments, handovers, deposits).
 * The pages run the same commands as the sandbox helpers; here nobody calls a helper.
 */
describe('approval page and agents’ application in a browser', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Integrator;
  let business: string;
  let otherBusiness: string;
  let beneficiary: string;
  let wholesaler: string;
  let pointA: string;
  let pointB: string;
  let counter = 0;
  const PASSWORD = 'correct horse battery';

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    shop = await createIntegrator(service);
    const connection = async (kind: string, name: string) => {
      const response = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name, currency: 'DZD' } });
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    business = await connection('business', 'Atlas Distribution');
    otherBusiness = await connection('business', 'Other Trading');
    wholesaler = await connection('wholesaler', 'Grossiste Sétif');
    const ben = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies SARL', currency: 'DZD' } });
    expect(ben.status).toBe(201);
    beneficiary = ben.body.id;
    expect((await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 20_000_000, currency: 'DZD' } })).status).toBe(201);
    // The first cash point registered is the collections' deposit point.
    pointA = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosque Bab Ezzouar', address: 'Bab Ezzouar, Alger' } })).body.id;
    pointB = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Tabac Oran Centre', address: 'Oran' } })).body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    // A phone whose browser asks for English (every language is driven in hosted-languages.e2e.spec.ts).
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    return { context, page: await context.newPage() };
  };
  const text = async (page: Page) => (await page.locator('main').innerText()).replace(/\s/g, ' ');
  const signIn = async (page: Page, login: string, password = PASSWORD) => {
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const businessUser = async (of: string) => {
    const login = `user${++counter}@atlas.example`;
    const response = await service.admin('POST', '/admin/v1/business_users', { body: { business: of, name: `User ${counter}`, login, password: PASSWORD } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ object: 'business_user', business: of, login });
    expect(response.body.id).toMatch(/^usr_/);
    expect(response.body.password).toBeUndefined();
    return login;
  };
  const agent = async (cashPoint: string, role: 'cashier' | 'carrier' = 'cashier') => {
    const login = `agent${++counter}`;
    const response = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: cashPoint, name: `Agent ${counter}`, login, password: PASSWORD, role } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ object: 'agent', cash_point: cashPoint, role, login });
    return login;
  };
  const supplierPayment = async () => {
    const response = await service.http('POST', '/v1/supplier_payments', {
      key: shop.apiKey,
      body: { payer_connection: business, beneficiary, amount: 5_000_000, currency: 'DZD', invoice_reference: `INV-${++counter}`, description: 'November supplies' },
    });
    expect(response.status).toBe(201);
    return response.body;
  };
  const approvalPage = (payment: { approval_url: string }) => `${service.url}${new URL(payment.approval_url).pathname}`;
  const cashPayment = async () => {
    const response = await service.http('POST', '/v1/cash_payments', {
      key: shop.apiKey,
      body: { amount: 1_250_000, currency: 'DZD', order_reference: `cash-${++counter}`, merchant_connection: shop.merchant },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(response.status).toBe(201);
    return response.body;
  };
  const collection = async () => {
    const response = await service.http('POST', '/v1/collections', {
      key: shop.apiKey,
      body: { amount: 3_000_000, currency: 'DZD', order_reference: `delivery-${++counter}`, beneficiary_connection: wholesaler },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(response.status).toBe(201);
    return response.body;
  };
  const agentApp = () => `${service.url}/hosted/agent`;

  it('admin API: business users and agents are validated (password 10 to 200 characters, a business connection, a cash point, unique logins)', async () => {
    const short = await service.admin('POST', '/admin/v1/business_users', { body: { business, name: 'X', login: 'short-pass', password: 'short' } });
    expect(short.status).toBe(400);
    const notBusiness = await service.admin('POST', '/admin/v1/business_users', { body: { business: shop.merchant, name: 'X', login: 'merchant-user', password: PASSWORD } });
    expect(notBusiness.body.error).toMatchObject({ code: 'invalid_request', param: 'business' });
    const login = await businessUser(business);
    const taken = await service.admin('POST', '/admin/v1/business_users', { body: { business, name: 'X', login, password: PASSWORD } });
    expect(taken.body.error).toMatchObject({ code: 'invalid_request', param: 'login' });
    const noPoint = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: 'cp_unknown00000000000000', name: 'X', login: 'nopoint', password: PASSWORD } });
    expect(noPoint.body.error).toMatchObject({ code: 'invalid_request', param: 'cash_point' });
    expect((await service.http('POST', '/admin/v1/agents', { body: { cash_point: pointA, name: 'X', login: 'nokey', password: PASSWORD } })).status).toBe(401);
  });

  it('a business user approves a supplier payment: the business is debited the amount plus the fee', async () => {
    const login = await businessUser(business);
    const payment = await supplierPayment();
    const before = await balanceOf(service, business);
    const { context, page } = await newPage();
    await page.goto(approvalPage(payment));
    await page.getByRole('heading', { name: 'Sahel Supplies SARL' }).waitFor({ state: 'visible' }); // waits until shown: the page may still be loading
    const shown = await text(page);
    for (const expected of ['Sahel Supplies SARL', payment.invoice_reference, 'November supplies', 'DZD 50,000.00', 'DZD 500.00', 'DZD 50,500.00', 'Atlas Distribution']) {
      expect(shown).toContain(expected);
    }
    await screenshot(page, 'approval-1-sign-in');
    await signIn(page, login);
    await screenshot(page, 'approval-2-signed-in');
    await page.getByRole('button', { name: /Approve/ }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
    await expect(page.locator('.status').innerText()).resolves.toBe('Approved and paid');
    await screenshot(page, 'approval-3-succeeded');
    expect(await balanceOf(service, business)).toBe(before - 5_050_000);
    expect((await service.http('GET', `/v1/supplier_payments/${payment.id}`, { key: shop.apiKey })).body).toMatchObject({ status: 'succeeded', fee_amount: 50_000 });
    await context.close();
  });

  it('another business user rejects one: nothing is debited', async () => {
    const login = await businessUser(business);
    const payment = await supplierPayment();
    const before = await balanceOf(service, business);
    const { context, page } = await newPage();
    await page.goto(approvalPage(payment));
    await signIn(page, login);
    await page.getByRole('button', { name: 'Reject' }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('rejected');
    await screenshot(page, 'approval-4-rejected');
    expect(await balanceOf(service, business)).toBe(before);
    expect((await service.http('GET', `/v1/supplier_payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('rejected');
    await context.close();
  });

  it('a user of another business cannot approve (no session, and a forged post is refused)', async () => {
    const outsider = await businessUser(otherBusiness);
    const payment = await supplierPayment();
    const { context, page } = await newPage();
    await page.goto(approvalPage(payment));
    await signIn(page, outsider);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not an authorized user');
    await screenshot(page, 'approval-5-other-business');
    expect(await page.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    const forged = await context.request.post(`${approvalPage(payment)}/approve`, { form: { csrf: 'x' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    // A session opened on another payment's page does not reach this one either.
    const insider = await businessUser(business);
    const mine = await supplierPayment();
    await page.goto(approvalPage(mine));
    await signIn(page, insider);
    const csrf = await page.locator('input[name="csrf"]').first().getAttribute('value');
    const across = await context.request.post(`${approvalPage(payment)}/approve`, { form: { csrf: csrf! }, maxRedirects: 0 });
    expect(across.status()).toBe(403);
    expect((await service.http('GET', `/v1/supplier_payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('awaiting_approval');
    await context.close();
  });

  it('an agent validates cash for a reference and gets the receipt number; a mistyped reference is refused', async () => {
    const login = await agent(pointA);
    const payment = await cashPayment();
    const reference: string = payment.payment_reference;
    const before = await balanceOf(service, shop.merchant);
    const { context, page } = await newPage();
    await page.goto(agentApp());
    await screenshot(page, 'agent-1-sign-in');
    await signIn(page, login);
    await expect(page.locator('main').innerText()).resolves.toContain('Kiosque Bab Ezzouar');
    await screenshot(page, 'agent-2-home');
    const mistyped = reference.slice(0, 9) + String((Number(reference[9]) + 1) % 10);
    await page.getByLabel('Payment reference').fill(mistyped);
    await page.getByRole('button', { name: 'Find the payment' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('mistyped');
    await screenshot(page, 'agent-3-mistyped-reference');

    await page.getByLabel('Payment reference').fill(`${reference.slice(0, 3)} ${reference.slice(3, 6)} ${reference.slice(6)}`);
    await page.getByRole('button', { name: 'Find the payment' }).click();
    const shown = await text(page);
    expect(shown).toContain('DZD 12,500.00');
    expect(shown).toContain('Test shop');
    await screenshot(page, 'agent-4-cash-payment');
    await page.getByLabel(/Cash received/).fill('12000.00');
    await page.getByRole('button', { name: 'Validate the cash' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not the exact amount');
    await page.getByLabel(/Cash received/).fill('12 500.00');
    await page.getByRole('button', { name: 'Validate the cash' }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
    const receipt = await page.locator('.receipt').innerText();
    expect(receipt).toMatch(/^R-\d{8}-\d$/);
    await screenshot(page, 'agent-5-receipt');
    const paid = (await service.http('GET', `/v1/cash_payments/${payment.id}`, { key: shop.apiKey })).body;
    expect(paid).toMatchObject({ status: 'succeeded', cash_point: pointA, receipt_number: receipt });
    expect(await balanceOf(service, shop.merchant)).toBe(before + paid.net_amount);
    await context.close();
  });

  it('a carrier confirms a handover with the recipient’s code (a wrong code is refused); an agent of another point is refused the deposit; the point’s agent validates it and the collection is settled', async () => {
    const col = await collection();
    const code = await service.http('GET', `/v1/collections/${col.id}/handover_code`, { key: shop.apiKey });
    expect(code.status).toBe(200);
    expect(code.body).toMatchObject({ object: 'handover_code', collection: col.id });
    expect(code.body.code).toMatch(/^\d{6}$/);
    const other = await createIntegrator(service);
    expect((await service.http('GET', `/v1/collections/${col.id}/handover_code`, { key: other.apiKey })).status).toBe(404);

    const carrier = await newPage();
    await carrier.page.goto(agentApp());
    await signIn(carrier.page, await agent(pointA, 'carrier'));
    await carrier.page.getByLabel('Collection id').fill(col.id);
    const wrong = code.body.code === '000000' ? '111111' : '000000';
    await carrier.page.getByLabel(/Handover code/).fill(wrong);
    await carrier.page.getByRole('button', { name: 'Confirm the handover' }).click();
    await expect(carrier.page.getByRole('alert').innerText()).resolves.toContain('not right');
    await screenshot(carrier.page, 'agent-6-handover-wrong-code');
    expect((await service.http('GET', `/v1/collections/${col.id}`, { key: shop.apiKey })).body.status).toBe('awaiting_collection');
    await carrier.page.getByLabel('Collection id').fill(col.id);
    await carrier.page.getByLabel(/Handover code/).fill(code.body.code);
    await carrier.page.getByRole('button', { name: 'Confirm the handover' }).click();
    await expect(carrier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
    await expect(carrier.page.locator('.status').innerText()).resolves.toBe('Picked up, awaiting deposit');
    await screenshot(carrier.page, 'agent-7-handover-confirmed');
    await carrier.context.close();

    const elsewhere = await newPage();
    await elsewhere.page.goto(agentApp());
    await signIn(elsewhere.page, await agent(pointB));
    await elsewhere.page.getByLabel('Collection id').fill(col.id);
    await elsewhere.page.getByRole('button', { name: 'Find the collection' }).click();
    await expect(elsewhere.page.getByRole('alert').innerText()).resolves.toContain('another cash point');
    await screenshot(elsewhere.page, 'agent-8-deposit-other-point');
    const csrf = await elsewhere.page.locator('input[name="csrf"]').first().getAttribute('value');
    const forcedHere = await elsewhere.context.request.post(`${agentApp()}/collections/${col.id}/validate-deposit`, { form: { csrf: csrf!, amount: '30000' }, maxRedirects: 0 });
    expect(forcedHere.headers()['location']).toBe('/hosted/agent?error=not_your_point');
    await elsewhere.context.close();

    const before = await balanceOf(service, wholesaler);
    const { context, page } = await newPage();
    await page.goto(agentApp());
    await signIn(page, await agent(pointA));
    await page.getByLabel('Collection id').fill(col.id);
    await page.getByRole('button', { name: 'Find the collection' }).click();
    expect(await text(page)).toContain('DZD 30,000.00');
    await screenshot(page, 'agent-9-deposit');
    await page.getByLabel(/Cash received/).fill('30000');
    await page.getByRole('button', { name: 'Validate the deposit' }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('settled');
    await screenshot(page, 'agent-10-settled');
    const settled = (await service.http('GET', `/v1/collections/${col.id}`, { key: shop.apiKey })).body;
    expect(settled).toMatchObject({ status: 'settled', deposit: { point: pointA, amount_received: 3_000_000 } });
    expect(await balanceOf(service, wholesaler)).toBe(before + settled.settlement.net_amount);
    await context.close();
  });

  it('agents’ lists: the carrier picks up from the pickups waiting and finds it in their cash to deposit, with the cash point; the cashier of that point finds it expected', async () => {
    const col = await collection();
    const code = (await service.http('GET', `/v1/collections/${col.id}/handover_code`, { key: shop.apiKey })).body.code as string;
    const carrier = await newPage();
    await carrier.page.goto(agentApp());
    await signIn(carrier.page, await agent(pointB, 'carrier'));
    const rowOf = (page: Page, list: string) => page.locator(`[data-list="${list}"] li`).filter({ has: page.locator(`a[href$="/${col.id}"]`) });
    expect(await text(carrier.page)).toContain('Pickups waiting');
    const pickup = rowOf(carrier.page, 'pickups');
    expect(plain(await pickup.innerText())).toContain(`Order ${col.order_reference}`);
    await pickup.locator('a').click();
    await carrier.page.getByLabel(/Handover code/).fill(code);
    await carrier.page.getByRole('button', { name: 'Confirm the handover' }).click();
    await expect(carrier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
    await carrier.page.goto(agentApp());
    expect(await rowOf(carrier.page, 'pickups').count()).toBe(0);
    expect(plain(await rowOf(carrier.page, 'to-deposit').innerText())).toContain('Deposit at Kiosque Bab Ezzouar');
    await screenshot(carrier.page, 'agent-11-carrier-lists');
    await carrier.context.close();
    // Another carrier does not hold it.
    const other = await newPage();
    await other.page.goto(agentApp());
    await signIn(other.page, await agent(pointA, 'carrier'));
    expect(await rowOf(other.page, 'to-deposit').count()).toBe(0);
    await other.context.close();

    const { context, page } = await newPage();
    await page.goto(agentApp());
    await signIn(page, await agent(pointA));
    await rowOf(page, 'expected-deposits').locator('a').click();
    expect(await text(page)).toContain('DZD 30,000.00');
    await page.getByLabel(/Cash received/).waitFor();
    await context.close();
  });

  it('CSRF: the new forms refuse a post without the right token (403) and change nothing', async () => {
    const payment = await supplierPayment();
    const fresh = await browser.newContext();
    const noCookie = await fresh.request.post(`${approvalPage(payment)}/sign-in`, { form: { login: 'x', password: PASSWORD, csrf: 'x' }, maxRedirects: 0 });
    expect(noCookie.status()).toBe(403);
    const agentNoCookie = await fresh.request.post(`${agentApp()}/sign-in`, { form: { login: 'x', password: PASSWORD, csrf: 'x' }, maxRedirects: 0 });
    expect(agentNoCookie.status()).toBe(403);
    await fresh.close();

    const cash = await cashPayment();
    const col = await collection();
    const code = (await service.http('GET', `/v1/collections/${col.id}/handover_code`, { key: shop.apiKey })).body.code;
    for (const role of ['cashier', 'carrier'] as const) {
      const { context, page } = await newPage();
      await page.goto(agentApp());
      await signIn(page, await agent(pointA, role));
      const posts: [string, Record<string, string>][] =
        role === 'cashier'
          ? [
              ['find-cash-payment', { reference: cash.payment_reference }],
              [`cash_payments/${cash.id}/pay`, { amount: '12500' }],
              [`collections/${col.id}/validate-deposit`, { amount: '30000' }],
            ]
          : [['handover', { collection: col.id, code }]];
      for (const [path, form] of posts) {
        expect((await context.request.post(`${agentApp()}/${path}`, { form: { ...form, csrf: 'forged' }, maxRedirects: 0 })).status()).toBe(403);
        expect((await context.request.post(`${agentApp()}/${path}`, { form, maxRedirects: 0 })).status()).toBe(403);
      }
      await context.close();
    }
    expect((await service.http('GET', `/v1/cash_payments/${cash.id}`, { key: shop.apiKey })).body.status).toBe('awaiting_payment');
    expect((await service.http('GET', `/v1/collections/${col.id}`, { key: shop.apiKey })).body.status).toBe('awaiting_collection');
  });

  it('security headers and cookies on the agents’ application', async () => {
    const response = await fetch(agentApp());
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // The sign-in page's only script is the forms' pending state, under this response's nonce.
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('set-cookie') ?? '').toMatch(/HttpOnly.*Secure.*SameSite=Lax/);
  });
});
