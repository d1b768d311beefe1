import type { Browser } from 'playwright-core';
import { LANGUAGES, type Language } from '@pay/hosted-ui';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser } from './browser';
import { openTab, plainText, type HostedTab } from './hosted-checks';
import { createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * HTML and script in every free text a hosted page shows (order, invoice and description, the names of
 * the merchant, business, wholesaler, supplier account, cash point and agent): each page, in each
 * language, shows it as text; no element of it reaches the DOM and nothing runs.
 */
const PAYLOAD = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
const named = (label: string) => `${label} ${PAYLOAD}`;
const PASSWORD = 'correct horse battery';
/** Our own scripts, each loaded under the response's nonce: the agents' scanner, and the forms' pending state. */
const OUR_SCRIPTS = new Set(['/hosted/assets/agent-scan.js', '/hosted/assets/forms.js']);

describe('hosted pages render hostile free text as text', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Integrator;
  let merchant: string;
  let business: string;
  let wholesaler: string;
  let beneficiary: string;
  let point: string;
  let counter = 0;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    shop = await createIntegrator(service);
    const connection = async (kind: string, name: string) => {
      const created = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name, currency: 'DZD' } });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    merchant = await connection('merchant', named('Merchant'));
    business = await connection('business', named('Business'));
    wholesaler = await connection('wholesaler', named('Wholesaler'));
    beneficiary = (await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: named('Supplier'), currency: 'DZD' } })).body.id;
    await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 100_000_000, currency: 'DZD' } });
    // The first cash point registered is the collections' deposit point.
    point = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: named('Point'), address: named('Street') } })).body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const post = async (path: string, body: Record<string, unknown>) => {
    const response = await service.http('POST', path, { key: shop.apiKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(response.status).toBe(201);
    return response.body;
  };
  const url = (hosted: string) => `${service.url}${new URL(hosted).pathname}`;
  const signIn = async ({ page, t }: HostedTab, fields: [string, string][]) => {
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
  };
  const agent = async (role: 'cashier' | 'carrier') => {
    const login = `inject-agent-${++counter}`;
    expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: named('Agent'), login, password: PASSWORD, role } })).status).toBe(201);
    return login;
  };

  /** Every hostile text expected on the page is visible as text; none of it became an element; nothing ran. */
  const expectInert = async (tab: HostedTab, visible: string[], where: string) => {
    const text = await plainText(tab.page, 'body');
    for (const label of visible) expect({ where, shown: text.includes(named(label)) }).toEqual({ where, shown: true });
    const dom = await tab.page.evaluate(() => {
      const document = (globalThis as any).document;
      return {
        injected: document.querySelectorAll('img[src="x"], [onerror], main script, body script').length,
        scripts: [...document.scripts].map((s: any) => s.getAttribute('src')),
      };
    });
    expect({ where, injected: dom.injected }).toEqual({ where, injected: 0 });
    expect({ where, scripts: dom.scripts.filter((src: string | null) => src === null || !OUR_SCRIPTS.has(src)) }).toEqual({ where, scripts: [] });
    expect({ where, problems: tab.problems }).toEqual({ where, problems: [] });
  };

  describe.each(LANGUAGES)('in %s', (language: Language) => {
    it("the payment page: the merchant's name and the order, in every step", async () => {
      const phone = `+21355577${String(++counter).padStart(4, '0')}`;
      const customer = (await service.admin('POST', '/admin/v1/customers', { body: { name: named('Customer'), phone, pin: '1234', currency: 'DZD' } })).body.id;
      await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: 5_000_000, currency: 'DZD' } });
      const payment = await post('/v1/payments', { amount: 1_250_000, currency: 'DZD', order_reference: named('Order'), merchant_connection: merchant, return_url: 'https://shop.example/return' });
      const tab = await openTab(browser, language, 'phone');
      const { page, t } = tab;
      await page.goto(url(payment.authorization_url));
      await expectInert(tab, ['Merchant', 'Order'], 'payment: sign-in');
      expect(await page.title()).toContain(named('Merchant'));
      await signIn(tab, [
        [t('field.phone'), phone],
        [t('field.pin'), '1234'],
      ]);
      await expectInert(tab, ['Merchant', 'Order'], 'payment: confirm');
      await page.locator('form[action$="/authorize"] button').click();
      await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
      await expectInert(tab, ['Merchant', 'Order'], 'payment: paid');
      await tab.context.close();
    });

    it('the approval page: supplier, invoice, description and business', async () => {
      const login = `inject-user-${++counter}`;
      await service.admin('POST', '/admin/v1/business_users', { body: { business, name: named('User'), login, password: PASSWORD } });
      const payment = await post('/v1/supplier_payments', { payer_connection: business, beneficiary, amount: 500_000, currency: 'DZD', invoice_reference: named('Invoice'), description: named('Description') });
      const tab = await openTab(browser, language, 'phone');
      const { page, t } = tab;
      await page.goto(url(payment.approval_url));
      await expectInert(tab, ['Supplier', 'Invoice', 'Description', 'Business'], 'approval: sign-in');
      expect(await page.title()).toContain(named('Invoice'));
      await signIn(tab, [
        [t('field.login'), login],
        [t('field.password'), PASSWORD],
      ]);
      await expectInert(tab, ['Supplier', 'Invoice', 'Description', 'Business'], 'approval: confirm');
      await page.locator('form[action$="/approve"] button').click();
      await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
      await expectInert(tab, ['Supplier', 'Invoice', 'Description', 'Business'], 'approval: approved');
      await tab.context.close();
    });

    it('the cash instructions: merchant, order, cash point name and address', async () => {
      const cash = await post('/v1/cash_payments', { amount: 1_250_000, currency: 'DZD', order_reference: named('Cash order'), merchant_connection: merchant });
      const tab = await openTab(browser, language, 'phone');
      await tab.page.goto(url(cash.instructions_url));
      await expectInert(tab, ['Merchant', 'Cash order', 'Point', 'Street'], 'cash instructions');
      const html = await (await fetch(url(cash.instructions_url))).text();
      expect(html).not.toContain(PAYLOAD);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
      await tab.context.close();
    });

    it("the agents' application: point and agent names, the merchant and order of a cash payment, the recipient and order of a collection", async () => {
      const cash = await post('/v1/cash_payments', { amount: 1_250_000, currency: 'DZD', order_reference: named('Cash order'), merchant_connection: merchant });
      const collection = await post('/v1/collections', { amount: 3_000_000, currency: 'DZD', order_reference: named('Delivery'), beneficiary_connection: wholesaler });
      const code = (await service.http('GET', `/v1/collections/${collection.id}/handover_code`, { key: shop.apiKey })).body.code as string;

      const cashier = await openTab(browser, language, 'phone');
      const t = cashier.t;
      await cashier.page.goto(`${service.url}/hosted/agent`);
      await signIn(cashier, [
        [t('field.login'), await agent('cashier')],
        [t('field.password'), PASSWORD],
      ]);
      await expectInert(cashier, ['Point', 'Agent'], 'agent home');
      await cashier.page.getByLabel(t('field.payment_reference'), { exact: true }).fill(cash.payment_reference);
      await cashier.page.getByRole('button', { name: t('action.find_payment'), exact: true }).click();
      await expectInert(cashier, ['Merchant', 'Cash order'], 'agent: cash payment');
      await cashier.page.getByLabel(t('field.cash_received', { currency: 'DZD' }), { exact: true }).fill('12500');
      await cashier.page.getByRole('button', { name: t('action.validate_cash'), exact: true }).click();
      await expect(cashier.page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
      await expectInert(cashier, ['Merchant', 'Cash order'], 'agent: receipt');
      await cashier.context.close();

      const carrier = await openTab(browser, language, 'phone');
      await carrier.page.goto(`${service.url}/hosted/agent`);
      await signIn(carrier, [
        [t('field.login'), await agent('carrier')],
        [t('field.password'), PASSWORD],
      ]);
      await carrier.page.getByLabel(t('field.collection_id'), { exact: true }).fill(collection.id);
      await carrier.page.getByLabel(t('field.handover_code'), { exact: true }).fill(code);
      await carrier.page.getByRole('button', { name: t('action.confirm_handover'), exact: true }).click();
      await expect(carrier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
      await expectInert(carrier, ['Wholesaler', 'Delivery'], 'agent: collection');
      await carrier.context.close();
    });
  });
});
