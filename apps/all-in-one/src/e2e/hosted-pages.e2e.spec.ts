import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, screenshot } from './browser';
import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * The live flows in a real browser (Debian's Chromium): what customers do at authorization_url. The
 * hosted pages run the same commands as the sandbox helpers; here nobody calls a helper.
 */
describe('hosted pages in a browser', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Integrator;
  const hook = new Receiver();

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    shop = await createIntegrator(service);
    await hook.start();
    await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: hook.url, enabled_events: ['*'] } });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await hook.stop();
  });

  const pageOf = (payment: { authorization_url: string }) => `${service.url}${new URL(payment.authorization_url).pathname}`;
  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    // A phone whose browser asks for English (every language is driven in hosted-languages.e2e.spec.ts).
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    return { context, page: await context.newPage() };
  };
  const signIn = async (page: Page, phone: string, pin: string) => {
    await page.getByLabel('Phone number').fill(phone);
    await page.getByLabel('PIN').fill(pin);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('a customer authorizes a payment end to end, returns to the merchant, and the integrator receives payment.succeeded', async () => {
    const customer = await createCustomer(service, 5_000_000);
    const payment = await createPayment(service, shop);
    const { context, page } = await newPage();
    await page.goto(pageOf(payment));
    await page.getByRole('heading', { name: 'Test shop' }).waitFor({ state: 'visible' }); // waits until shown: the page may still be loading
    const text = (await page.locator('main').innerText()).replace(/\s/g, ' ');
    expect(text).toContain('DZD 12,500.00');
    expect(text).toContain('Test shop');
    expect(text).toContain(payment.order_reference);
    await screenshot(page, 'payment-1-sign-in');

    await signIn(page, '+213555000111', '1234');
    await screenshot(page, 'payment-2-signed-in');
    await page.getByRole('button', { name: /Authorize/ }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
    await expect(page.locator('.status').innerText()).resolves.toBe('Paid');
    await screenshot(page, 'payment-3-succeeded');

    const back = await page.getByRole('link', { name: /^Return to \u2068?Test shop\u2069?$/ }).getAttribute('href'); // the name isolated in the sentence
    expect(back).toBe(`https://shop.example/return?payment_id=${payment.id}`);
    const retrieved = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
    expect(retrieved.body.status).toBe('succeeded');
    expect((await service.admin('GET', `/admin/v1/balances/${customer}`)).body.available).toBe(5_000_000 - 1_250_000);
    await hook.waitFor(1);
    expect(hook.events().find((e) => e.data.id === payment.id)).toMatchObject({ type: 'payment.succeeded' });
    await context.close();
  });

  it('a customer declines, and the link back keeps the return_url byte for byte, payment_id appended before its fragment', async () => {
    await createCustomer(service, 5_000_000);
    const returnUrl = 'https://shop.example/r?x=a%20b&y=%7E&z&sig=A%2BB#frag'; // a query the merchant signs
    const payment = await createPayment(service, shop, { return_url: returnUrl });
    const { context, page } = await newPage();
    await page.goto(pageOf(payment));
    await signIn(page, '+213555000111', '1234');
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('declined');
    await screenshot(page, 'payment-4-declined');
    const back = await page.getByRole('link', { name: /^Return to / }).getAttribute('href');
    expect(back).toBe(`https://shop.example/r?x=a%20b&y=%7E&z&sig=A%2BB&payment_id=${payment.id}#frag`);
    const retrieved = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
    expect(retrieved.body).toMatchObject({ status: 'declined', decline_reason: 'customer_declined' });
    await context.close();
  });

  it('a wrong PIN five times locks the sign-in, even for the right PIN afterwards', async () => {
    const phone = '+213555999001';
    await service.admin('POST', '/admin/v1/customers', { body: { name: 'Lock', phone, pin: '2468', currency: 'DZD' } });
    const payment = await createPayment(service, shop);
    const { context, page } = await newPage();
    await page.goto(pageOf(payment));
    for (let attempt = 1; attempt <= 4; attempt++) {
      await signIn(page, phone, '0000');
      await expect(page.getByRole('alert').innerText()).resolves.toContain('not right');
    }
    await signIn(page, phone, '0000');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('locked');
    await signIn(page, phone, '2468');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('locked');
    await screenshot(page, 'payment-5-locked');
    expect(await page.getByRole('button', { name: /Authorize/ }).count()).toBe(0);
    await context.close();
  });

  it('a form post without the right CSRF token is refused (403) and changes nothing', async () => {
    await createCustomer(service, 5_000_000);
    const payment = await createPayment(service, shop);
    const { context, page } = await newPage();
    await page.goto(pageOf(payment));
    await signIn(page, '+213555000111', '1234');
    const forged = await context.request.post(`${pageOf(payment)}/authorize`, { form: { csrf: 'forged-token' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    const missing = await context.request.post(`${pageOf(payment)}/authorize`, { form: {}, maxRedirects: 0 });
    expect(missing.status()).toBe(403);
    const signInWithoutCookie = await browser.newContext().then((fresh) => fresh.request.post(`${pageOf(payment)}/sign-in`, { form: { phone: '+213555000111', pin: '1234', csrf: 'x' }, maxRedirects: 0 }));
    expect(signInWithoutCookie.status()).toBe(403);
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('pending');
    await context.close();
  });

  it("one customer's session cannot authorize through another payment's page", async () => {
    await createCustomer(service, 5_000_000);
    const [mine, other] = [await createPayment(service, shop), await createPayment(service, shop)];
    const { context, page } = await newPage();
    await page.goto(pageOf(mine));
    await signIn(page, '+213555000111', '1234');
    const csrf = await page.locator('input[name="csrf"]').first().getAttribute('value');
    const across = await context.request.post(`${pageOf(other)}/authorize`, { form: { csrf: csrf! }, maxRedirects: 0 });
    expect(across.status()).toBe(403);
    await page.goto(pageOf(other));
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1); // not signed in there
    expect((await service.http('GET', `/v1/payments/${other.id}`, { key: shop.apiKey })).body.status).toBe('pending');
    await context.close();
  });

  it('the cash instructions page shows amount, reference, a QR code that loads, the deadline and the cash points', async () => {
    await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Alger Centre', address: '1 rue Didouche Mourad, Alger' } });
    const created = await service.http('POST', '/v1/cash_payments', {
      key: shop.apiKey,
      body: { amount: 1_250_000, currency: 'DZD', order_reference: 'cash-order-1', merchant_connection: shop.merchant },
    });
    expect(created.status).toBe(201);
    const { context, page } = await newPage();
    await page.goto(`${service.url}${new URL(created.body.instructions_url).pathname}`);
    const text = (await page.locator('body').innerText()).replace(/\s/g, ' ');
    expect(text).toContain('DZD 12,500.00');
    expect(text).toContain('Test shop');
    expect(text).toContain('cash-order-1');
    expect(text.replace(/ /g, '')).toContain(created.body.payment_reference);
    expect(text).toContain('Alger Centre');
    expect(text).toContain('1 rue Didouche Mourad, Alger');
    const qrLoaded = await page.locator('img').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth > 0);
    expect(qrLoaded).toBe(true);
    await screenshot(page, 'cash-1-instructions');
    await context.close();
  });

  it("a right-to-left override in the merchant's name stays inside the name, in French and English: title, sentences, cash instructions", async () => {
    const name = '\u202Epohs ebuR'; // shown as "Rube shop"; without an isolate, the rest of each sentence (the amount too) would read backwards
    const merchant = (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'merchant', name, currency: 'DZD' } })).body.id;
    const payment = await createPayment(service, shop, { merchant_connection: merchant });
    const cash = await service.http('POST', '/v1/cash_payments', { key: shop.apiKey, body: { amount: 5000, currency: 'DZD', order_reference: 'bidi-1', merchant_connection: merchant } });
    expect(cash.status).toBe(201);
    for (const [language, title] of [['fr', 'Paiement à'], ['en', 'Payment to']] as const) {
      const html = await (await fetch(pageOf(payment), { headers: { 'Accept-Language': language } })).text();
      expect(html).toContain(`<title>${title} \u2068${name}\u2069 · Pay</title>`);
      expect(html).toContain(`<h1 class="party"><bdi>${name}</bdi></h1>`);
      const instructions = await (await fetch(`${service.url}${new URL(cash.body.instructions_url).pathname}`, { headers: { 'Accept-Language': language } })).text();
      // Every RLO of either page sits in an isolate of its own (FSI … PDI) or a <bdi>: none reaches the sentence around it.
      for (const page of [html, instructions]) {
        const overrides = [...page.matchAll(/.\u202E[^\u2069<]*./gu)].map((m) => m[0]);
        expect(overrides.length).toBeGreaterThan(0);
        for (const found of overrides) expect(found).toMatch(/^(\u2068\u202E.*\u2069|>\u202E.*<)$/u);
      }
    }
  });

  it("a customer whose account is in another currency: the authorize post answers 400 with the page and currency_mismatch, and the payment stays pending", async () => {
    const phone = '+213555777001';
    expect((await service.admin('POST', '/admin/v1/customers', { body: { name: 'Karim', phone, pin: '1357', currency: 'MAD' } })).status).toBe(201);
    const payment = await createPayment(service, shop); // DZD
    const { context, page } = await newPage();
    await page.goto(pageOf(payment));
    await signIn(page, phone, '1357');
    const csrf = await page.locator('form[action$="/authorize"] input[name="csrf"]').getAttribute('value');
    const posted = await context.request.post(`${pageOf(payment)}/authorize`, { form: { csrf: csrf! }, maxRedirects: 0, headers: { 'Accept-Language': 'en' } });
    expect({ status: posted.status(), type: posted.headers()['content-type'] }).toEqual({ status: 400, type: 'text/html; charset=utf-8' });
    expect(posted.headers()['location']).toBeUndefined();
    expect(await posted.text()).toMatch(/<p class="alert error" role="alert" id="form-error" data-code="currency_mismatch">Your account’s currency is not the payment’s currency/);
    // In the browser: the button's post shows the same page, the message above the form, the form still there.
    await page.getByRole('button', { name: /Authorize/ }).click();
    await expect(page.locator('[data-code="currency_mismatch"]').innerText()).resolves.toContain('not the payment’s currency');
    // The page answering the post has working forms: a second tap posts to the payment again.
    await page.getByRole('button', { name: /Authorize/ }).click();
    await expect(page.locator('[data-code="currency_mismatch"]').innerText()).resolves.toContain('currency');
    expect(new URL(page.url()).pathname).toBe(`/hosted/payments/${payment.id}/authorize`);
    await screenshot(page, 'payment-6-currency-mismatch');
    expect((await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey })).body.status).toBe('pending');
    await context.close();
  });

  it('a customer never gets JSON: an unknown cash payment, an id pasted with a full stop or with markup, a query in Latin-1 are pages (the API keeps its JSON)', async () => {
    const payment = await createPayment(service, shop);
    const english = { headers: { 'Accept-Language': 'en' } };
    const expectPage = async (path: string, status: number, init: RequestInit = english) => {
      const response = await fetch(`${service.url}${path}`, init);
      const body = await response.text();
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({ path, status, type: 'text/html; charset=utf-8' });
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      return body;
    };
    expect(await expectPage('/hosted/cash_payments/cpay_nope/instructions', 404)).toContain('Page not found');
    const qr = await fetch(`${service.url}/hosted/cash_payments/cpay_nope/qr.png`);
    expect(qr.status).toBe(404);
    expect(qr.headers.get('content-type') ?? '').not.toMatch(/json/);
    expect(await expectPage(`/hosted/payments/${payment.id}.`, 404)).toContain('Page not found'); // a link pasted into a text message
    const markup = await expectPage('/hosted/payments/%3Cx%3E', 404);
    expect(markup).toContain('Page not found');
    expect(markup).not.toContain('<x>');
    expect(await expectPage(`/hosted/supplier_payments/spay_x.`, 404)).toContain('Page not found');
    expect(await expectPage(`/hosted/agent/collections/col_x.`, 404)).toContain('Page not found');
    expect(await expectPage(`/hosted/payments/${payment.id}./authorize`, 404, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Accept-Language': 'en' }, body: 'csrf=x' })).toContain('Page not found');
    const latin1 = await expectPage(`/hosted/payments/${payment.id}?utm=%E9t%E9`, 400);
    expect(latin1).toContain('This link cannot be read');
    expect(latin1).toContain(`href="/hosted/payments/${payment.id}"`); // the page without its query
    expect(await expectPage(`/hosted/payments/${payment.id}?utm=%E9t%E9`, 400, { headers: { 'Accept-Language': 'fr' } })).toContain('Ce lien ne peut pas être lu');
    // The API's answers stay JSON in the contract's shape.
    const api = await service.http('GET', `/v1/payments/${payment.id}.`, { key: shop.apiKey });
    expect({ status: api.status, code: api.body.error.code }).toEqual({ status: 404, code: 'resource_not_found' });
    const query = await service.http('GET', `/v1/payments?utm=%E9t%E9`, { key: shop.apiKey });
    expect({ status: query.status, code: query.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
    const admin = await service.admin('GET', '/admin/v1/integrators/int_x.');
    expect({ status: admin.status, code: admin.body.error.code }).toEqual({ status: 404, code: 'resource_not_found' });
  });

  it('security headers: no inline script (our forms script under the response nonce only), no inline style, no framing, no caching', async () => {
    const payment = await createPayment(service, shop);
    const response = await fetch(pageOf(payment));
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'(;|$)/.exec(csp)?.[1];
    expect(response.headers.get('permissions-policy')).toContain('camera=()');
    const html = await response.text();
    expect(html).not.toMatch(/\sstyle=/);
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([`<script src="/hosted/assets/forms.js" nonce="${nonce}" defer>`]);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });
});
