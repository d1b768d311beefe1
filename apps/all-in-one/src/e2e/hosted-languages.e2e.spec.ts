import type { Browser } from 'playwright-core';
import { LANGUAGES, type Language } from '@pay/hosted-ui';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, screenshot } from './browser';
import { axeViolations, checkPage, openTab, plain, plainText, VIEWPORTS, type HostedTab, type Viewport } from './hosted-checks';
import { createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * Every hosted flow in a real browser (Debian's Chromium), in French, Arabic (right to left) and
 * English, on a phone and on a desktop screen: the customer's payment, the supplier payment approval,
 * the cash instructions, the cash agent's validation, the carrier's handover and the deposit. Each
 * page is checked (language, direction, brand, translations, layout, axe-core) and photographed under
 * artifacts/screenshots/hosted/.
 */
const BRAND = { BRAND_NAME: 'Sahla Pay', BRAND_COLOR: '#006233' };
const PASSWORD = 'correct horse battery';

/** What the customer reads, per language (Intl's spaces and bidi marks removed). */
const AMOUNT: Readonly<Record<Language, { payment: string; approval: string; collection: string }>> = {
  fr: { payment: '12 500,00 DA', approval: '50 000,00 DA', collection: '30 000,00 DA' },
  ar: { payment: '12.500,00 د.ج.', approval: '50.000,00 د.ج.', collection: '30.000,00 د.ج.' },
  en: { payment: 'DZD 12,500.00', approval: 'DZD 50,000.00', collection: 'DZD 30,000.00' },
};

/** 12 500 as a cashier types it: Arabic-Indic digits on an Arabic keyboard. */
const TYPED: Readonly<Record<Language, string>> = { fr: '12 500,00', ar: '١٢٥٠٠٫٠٠', en: '12500.00' };

describe('hosted pages in every language, on a phone and a desktop', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Integrator;
  let merchant: string;
  let business: string;
  let beneficiary: string;
  let wholesaler: string;
  let depositPoint: string;
  let counter = 0;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(BRAND), launchBrowser()]);
    shop = await createIntegrator(service);
    const connection = async (kind: string, name: string) => (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name, currency: 'DZD' } })).body.id as string;
    merchant = await connection('merchant', 'Librairie El Baraka');
    business = await connection('business', 'Atlas Distribution');
    wholesaler = await connection('wholesaler', 'Grossiste Sétif');
    beneficiary = (await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies SARL', currency: 'DZD' } })).body.id;
    await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 500_000_000, currency: 'DZD' } });
    // The first cash point registered is the collections' deposit point.
    depositPoint = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosque Bab Ezzouar', address: 'Centre commercial, Bab Ezzouar, Alger' } })).body.id;
    await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Bureau de poste Didouche', address: '12 rue Didouche Mourad, Alger' } });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (hosted: string) => `${service.url}${new URL(hosted).pathname}`;
  const post = async (path: string, body: Record<string, unknown>) => {
    const response = await service.http('POST', path, { key: shop.apiKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(response.status).toBe(201);
    return response.body;
  };
  const agent = async (role: 'cashier' | 'carrier') => {
    const login = `lang-agent-${++counter}`;
    expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: depositPoint, name: `Yacine ${counter}`, login, password: PASSWORD, role } })).status).toBe(201);
    return login;
  };
  const signInWithPassword = async ({ page, t }: HostedTab, login: string) => {
    await page.getByLabel(t('field.login'), { exact: true }).fill(login);
    await page.getByLabel(t('field.password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
  };

  for (const language of LANGUAGES) {
    for (const viewport of Object.keys(VIEWPORTS) as Viewport[]) {
      const shot = (name: string) => `${language}-${viewport}-${name}`;
      const check = (tab: HostedTab, name: string) => checkPage(tab, language, BRAND.BRAND_NAME, shot(name));

      describe(`${language} on a ${viewport}`, () => {
        it('a customer signs in (a wrong PIN first) and authorizes a payment', async () => {
          const phone = `+21355512${String(++counter).padStart(4, '0')}`;
          const customer = (await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone, pin: '1234', currency: 'DZD' } })).body.id;
          await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: 5_000_000, currency: 'DZD' } });
          const payment = await post('/v1/payments', { amount: 1_250_000, currency: 'DZD', order_reference: `CMD-${counter}`, merchant_connection: merchant, return_url: 'https://shop.example/return' });
          const tab = await openTab(browser, language, viewport);
          const { page, t } = tab;
          await page.goto(url(payment.authorization_url));
          await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Librairie El Baraka');
          const shown = await plainText(page);
          for (const expected of [AMOUNT[language].payment, `CMD-${counter}`, t('zone.Africa/Algiers'), t('status.payment.pending'), t('payment.next_sign_in')]) expect(shown).toContain(plain(expected));
          await check(tab, 'payment-1-sign-in');

          await page.getByLabel(t('field.phone'), { exact: true }).fill(phone);
          await page.getByLabel(t('field.pin'), { exact: true }).fill('0000');
          await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
          await expect(page.getByRole('alert').innerText()).resolves.toBe(t('error.sign_in_pin'));
          await check(tab, 'payment-2-wrong-pin');

          await page.getByLabel(t('field.phone'), { exact: true }).fill(phone);
          await page.getByLabel(t('field.pin'), { exact: true }).fill('1234');
          await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
          const authorize = page.locator('form[action$="/authorize"] button');
          expect(plain(await authorize.innerText())).toBe(plain(t('action.authorize', { amount: AMOUNT[language].payment })));
          await check(tab, 'payment-3-confirm');

          await authorize.click();
          await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
          await expect(page.locator('.status').innerText()).resolves.toBe(t('status.payment.succeeded'));
          const back = page.locator('main a[href^="https://shop.example/"]');
          expect(plain(await back.innerText())).toBe(plain(t('action.return_to_merchant', { merchant: 'Librairie El Baraka' })));
          expect(await back.getAttribute('href')).toBe(`https://shop.example/return?payment_id=${payment.id}`);
          await check(tab, 'payment-4-paid');
          await tab.context.close();
        });

        it('a business user approves a supplier payment', async () => {
          const login = `approver${++counter}@atlas.example`;
          await service.admin('POST', '/admin/v1/business_users', { body: { business, name: 'Karim', login, password: PASSWORD } });
          const payment = await post('/v1/supplier_payments', { payer_connection: business, beneficiary, amount: 5_000_000, currency: 'DZD', invoice_reference: `FAC-${counter}`, description: 'Fournitures de novembre' });
          const tab = await openTab(browser, language, viewport);
          const { page, t } = tab;
          await page.goto(url(payment.approval_url));
          await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Sahel Supplies SARL');
          const shown = await plainText(page);
          for (const expected of [AMOUNT[language].approval, `FAC-${counter}`, 'Fournitures de novembre', t('approval.paid_by', { business: 'Atlas Distribution' }), t('status.supplier_payment.awaiting_approval')]) expect(shown).toContain(plain(expected));
          await check(tab, 'approval-1-sign-in');

          await signInWithPassword(tab, login);
          await page.getByRole('heading', { name: t('approval.confirm_heading') }).waitFor({ state: 'visible' }); // waits until shown: the page may still be loading
          await check(tab, 'approval-2-confirm');

          await page.locator('form[action$="/approve"] button').click();
          await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
          await expect(page.locator('.status').innerText()).resolves.toBe(t('status.supplier_payment.succeeded'));
          await check(tab, 'approval-3-approved');
          await tab.context.close();
        });

        it('the cash instructions name the merchant and the order, and print', async () => {
          const cash = await post('/v1/cash_payments', { amount: 1_250_000, currency: 'DZD', order_reference: `CMD-${++counter}`, merchant_connection: merchant });
          const tab = await openTab(browser, language, viewport);
          const { page, t } = tab;
          await page.goto(url(cash.instructions_url));
          await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Librairie El Baraka');
          const shown = await plainText(page);
          for (const expected of [AMOUNT[language].payment, `CMD-${counter}`, t('cash.step_pay', { amount: AMOUNT[language].payment }), 'Kiosque Bab Ezzouar', t('zone.Africa/Algiers')]) expect(shown).toContain(plain(expected));
          expect((await page.locator('#payment-reference').innerText()).replace(/\s/g, '')).toBe(cash.payment_reference);
          expect(await page.locator('img.qr').evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true);
          await check(tab, 'cash-1-instructions');

          await page.emulateMedia({ media: 'print' });
          expect(await page.locator('.languages').isVisible()).toBe(false);
          await page.locator('#payment-reference').waitFor({ state: 'visible' });
          await screenshot(page, `hosted/${shot('cash-2-print')}`);
          await tab.context.close();
        });

        it('a cashier finds a cash payment by its reference, refuses a wrong amount and validates the cash', async () => {
          const login = await agent('cashier');
          const cash = await post('/v1/cash_payments', { amount: 1_250_000, currency: 'DZD', order_reference: `CMD-${++counter}`, merchant_connection: merchant });
          const tab = await openTab(browser, language, viewport);
          const { page, t } = tab;
          await page.goto(`${service.url}/hosted/agent`);
          await check(tab, 'agent-1-sign-in');
          await signInWithPassword(tab, login);
          await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Kiosque Bab Ezzouar');
          expect(await page.locator('[data-scan]:visible').count()).toBe(0); // no BarcodeDetector here: every scanner stays hidden, the typed reference only
          await check(tab, 'agent-2-home');

          await page.getByLabel(t('field.payment_reference'), { exact: true }).fill(cash.payment_reference);
          await page.getByRole('button', { name: t('action.find_payment'), exact: true }).click();
          await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Librairie El Baraka');
          expect(await plainText(page)).toContain(AMOUNT[language].payment);
          await check(tab, 'agent-3-cash-payment');

          const received = page.getByLabel(t('field.cash_received', { currency: 'DZD' }), { exact: true });
          await received.fill('12000');
          await page.getByRole('button', { name: t('action.validate_cash'), exact: true }).click();
          await expect(page.getByRole('alert').innerText()).resolves.toBe(t('error.invalid_amount'));
          await check(tab, 'agent-4-wrong-amount');

          await received.fill(TYPED[language]);
          await page.getByRole('button', { name: t('action.validate_cash'), exact: true }).click();
          await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
          const receipt = await page.locator('.receipt').innerText();
          expect(receipt).toMatch(/^R-\d{8}-\d$/);
          expect(plain(await page.getByRole('status').innerText())).toBe(`${plain(t('agent.cash_validated'))} ${receipt}`);
          await check(tab, 'agent-5-receipt');
          await tab.context.close();
        });

        it('a carrier confirms a handover with the recipient’s code, and the cashier validates the deposit', async () => {
          const collection = await post('/v1/collections', { amount: 3_000_000, currency: 'DZD', order_reference: `LIV-${++counter}`, beneficiary_connection: wholesaler });
          const code = (await service.http('GET', `/v1/collections/${collection.id}/handover_code`, { key: shop.apiKey })).body.code as string;
          const carrier = await openTab(browser, language, viewport);
          await carrier.page.goto(`${service.url}/hosted/agent`);
          await signInWithPassword(carrier, await agent('carrier'));
          await check(carrier, 'handover-1-home');
          const t = carrier.t;
          await carrier.page.getByLabel(t('field.collection_id'), { exact: true }).fill(collection.id);
          await carrier.page.getByLabel(t('field.handover_code'), { exact: true }).fill(code);
          await carrier.page.getByRole('button', { name: t('action.confirm_handover'), exact: true }).click();
          await expect(carrier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
          await expect(carrier.page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Grossiste Sétif');
          await expect(carrier.page.getByRole('status').innerText()).resolves.toBe(t('agent.handover_done'));
          await check(carrier, 'handover-2-confirmed');
          await carrier.context.close();

          const cashier = await openTab(browser, language, viewport);
          await cashier.page.goto(`${service.url}/hosted/agent`);
          await signInWithPassword(cashier, await agent('cashier'));
          await cashier.page.getByLabel(t('field.collection_id'), { exact: true }).fill(collection.id);
          await cashier.page.getByRole('button', { name: t('action.find_collection'), exact: true }).click();
          expect(await plainText(cashier.page)).toContain(AMOUNT[language].collection);
          await check(cashier, 'deposit-1-collection');
          await cashier.page.getByLabel(t('field.cash_received', { currency: 'DZD' }), { exact: true }).fill('30000');
          await cashier.page.getByRole('button', { name: t('action.validate_deposit'), exact: true }).click();
          await expect(cashier.page.locator('.status').getAttribute('data-status')).resolves.toBe('settled');
          await check(cashier, 'deposit-2-settled');
          await cashier.context.close();
        });
      });
    }
  }

  it('the switch changes the language without script, and the choice is remembered (cookie) over the browser’s', async () => {
    const payment = await post('/v1/payments', { amount: 1_250_000, currency: 'DZD', order_reference: `CMD-${++counter}`, merchant_connection: merchant, return_url: 'https://shop.example/return' });
    const tab = await openTab(browser, 'en', 'phone');
    const { page } = tab;
    await page.goto(url(payment.authorization_url));
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await page.getByRole('link', { name: 'العربية' }).click();
    expect(new URL(page.url()).searchParams.get('lang')).toBe('ar');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    const cookie = (await tab.context.cookies()).find((c) => c.name === 'pay_lang');
    expect(cookie).toMatchObject({ value: 'ar', path: '/hosted', httpOnly: true, secure: true, sameSite: 'Lax' });
    // Another page, no ?lang=: the choice holds over Accept-Language (en).
    await page.goto(`${service.url}/hosted/agent`);
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    await page.getByRole('link', { name: 'Français' }).click();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  });

  it('axe-core runs in these pages: it finds a violation in a page made to have one', async () => {
    const tab = await openTab(browser, 'fr', 'phone');
    await tab.page.setContent('<html><body><img src="data:,"><input></body></html>');
    expect(await axeViolations(tab.page)).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'image-alt' }), expect.objectContaining({ id: 'html-has-lang' })]));
    await tab.context.close();
  });

  it('the brand: its name on every page, its colour in the stylesheet, served from this origin', async () => {
    const css = await fetch(`${service.url}/hosted/assets/pages.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('--brand:#006233');
    const page = await fetch(`${service.url}/hosted/agent`, { headers: { 'Accept-Language': 'ar' } });
    expect(page.headers.get('content-language')).toBe('ar');
    const html = await page.text();
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('<span class="brand-name">Sahla Pay</span>');
    expect(html).toContain('<link rel="stylesheet" href="/hosted/assets/pages.css">');
  });
});
