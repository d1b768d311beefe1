import type { Browser, Page } from 'playwright-core';
import { LANGUAGES, type Language } from '@pay/hosted-ui';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser } from './browser';
import { checkPage, openTab, plain, plainText, SCREENS, type HostedTab, type Screen } from './hosted-checks';
import { createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * What people who use the hosted pages every day trip over, in a real browser, in French, Arabic and
 * English, on a small phone (360×640), a phone (390×844) and a desktop: phones typed as people type
 * them, a wrong PIN that keeps the phone, errors tied to their fields, not enough money told apart
 * from a refusal, system pages with a way back, the result page, the approval's debited total, and
 * the agents' amounts, deposit confirmation, expected deposits and deposit point. Every page is also
 * checked as in hosted-languages (axe-core, no overflow, no console error) and photographed under
 * artifacts/screenshots/hosted/everyday-….
 */
const BRAND = 'Pay';
const PASSWORD = 'correct horse battery';
const MERCHANT = 'Librairie El Baraka';

/** 9 000,00 DZD as each page writes it, and 8 500,00 as an agent types it from their screen. */
const SHOWN: Readonly<Record<Language, { expected: string; short: string; typedShort: string; cash: string; typedCash: string }>> = {
  fr: { expected: '9 000,00 DA', short: '8 500,00 DA', typedShort: '8 500,00', cash: '4 800,00 DA', typedCash: '4 800,00 DA' },
  ar: { expected: '9.000,00 د.ج.', short: '8.500,00 د.ج.', typedShort: '٨٬٥٠٠٫٠٠', cash: '4.800,00 د.ج.', typedCash: '٤٬٨٠٠٫٠٠' },
  en: { expected: 'DZD 9,000.00', short: 'DZD 8,500.00', typedShort: '8,500.00', cash: 'DZD 4,800.00', typedCash: '4,800.00' },
};
const TYPED_EXPECTED: Readonly<Record<Language, string>> = { fr: '9 000,00', ar: '9.000,00', en: '9,000.00' };

/** Words of the elements matched that the layout splits over two lines ("approbati/on"). */
const wordsSplit = (page: Page, selector: string): Promise<string[]> =>
  page.evaluate((sel) => {
    const doc = (globalThis as any).document;
    const split: string[] = [];
    for (const element of doc.querySelectorAll(sel)) {
      const walker = doc.createTreeWalker(element, 4);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of (node.textContent as string).matchAll(/\S+/g)) {
          const range = doc.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index! + word[0].length);
          const tops = new Set(Array.from(range.getClientRects() as ArrayLike<{ top: number; width: number }>).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) split.push(word[0]);
        }
      }
    }
    return split;
  }, selector);

/** How many lines an element's text takes. */
const linesOf = (page: Page, selector: string): Promise<number> =>
  page.locator(selector).evaluate((element: any) => {
    const style = (globalThis as any).getComputedStyle(element);
    return Math.round(element.getBoundingClientRect().height / parseFloat(style.lineHeight));
  });

describe('hosted pages as people use them every day', () => {
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
    [service, browser] = await Promise.all([startTestService({ BRAND_NAME: BRAND }), launchBrowser()]);
    shop = await createIntegrator(service);
    const connection = async (kind: string, name: string) => (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name, currency: 'DZD' } })).body.id as string;
    merchant = await connection('merchant', MERCHANT);
    business = await connection('business', 'Atlas Distribution');
    wholesaler = await connection('wholesaler', 'Grossiste Sétif');
    beneficiary = (await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies SARL', currency: 'DZD' } })).body.id;
    await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 500_000_000, currency: 'DZD' } });
    // The first cash point registered is the collections' deposit point.
    depositPoint = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosque Bab Ezzouar', address: 'Centre commercial, Bab Ezzouar, Alger' } })).body.id;
  }, 120_000);
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
  /** A customer with a phone of their own (a valid Algerian mobile), and its national form `0661 23 45 67`. */
  const customer = async (balance: number) => {
    const digits = `661${String(++counter).padStart(6, '0')}`;
    const phone = `+213${digits}`;
    const created = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina Benali', phone, pin: '1234', currency: 'DZD' } });
    expect(created.status).toBe(201);
    if (balance > 0) await service.admin('POST', '/admin/v1/topups', { body: { account: created.body.id, amount: balance, currency: 'DZD' } });
    return { phone, national: `0${digits.slice(0, 3)} ${digits.slice(3, 5)} ${digits.slice(5, 7)} ${digits.slice(7)}` };
  };
  const payment = () => post('/v1/payments', { amount: 1_250_000, currency: 'DZD', order_reference: `CMD-${++counter}`, merchant_connection: merchant, return_url: 'https://shop.example/return' });
  const signIn = async ({ page, t }: HostedTab, phone: string | null, pin: string) => {
    if (phone !== null) await page.getByLabel(t('field.phone'), { exact: true }).fill(phone);
    await page.getByLabel(t('field.pin'), { exact: true }).fill(pin);
    await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
  };

  it('a phone typed in every common form signs in: national, international, 00, spaced, dashed, bracketed, Arabic-Indic and Persian digits', async () => {
    const { phone } = await customer(0);
    const forms = ['0661 00 00 01', '+213 661 00 00 01', '00213661000001', '00213 661 00 00 01', '0661-00-00-01', '(0661) 00.00.01', '٠٦٦١ ٠٠ ٠٠ ٠١', '+٢١٣٦٦١٠٠٠٠٠١', '۰۶۶۱۰۰۰۰۰۱', '661 00 00 01'];
    expect(phone).toBe('+213661000001');
    const tab = await openTab(browser, 'fr', 'phone');
    for (const typed of forms) {
      const created = await payment();
      await tab.context.clearCookies();
      await tab.page.goto(url(created.authorization_url));
      await signIn(tab, typed, '1234');
      expect({ typed, confirm: await tab.page.locator('form[action$="/authorize"]').count() }).toEqual({ typed, confirm: 1 });
    }
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  });

  for (const language of LANGUAGES) {
    describe(`in ${language}`, () => {
      for (const screen of Object.keys(SCREENS) as Screen[]) {
        const shot = (name: string) => `everyday-${language}-${screen}-${name}`;

        it(`${screen}: a wrong PIN keeps the phone, ties the error to the fields and warns of the lock; then the result page`, async () => {
          const { national } = await customer(5_000_000);
          const created = await payment();
          const tab = await openTab(browser, language, screen);
          const { page, t } = tab;
          await page.goto(url(created.authorization_url));
          // A form field above the fold, and no status word nor date squeezed into a narrow column.
          const phoneBox = (await page.locator('#phone').boundingBox())!;
          expect({ screen, phoneFieldBottom: phoneBox.y + phoneBox.height <= SCREENS[screen].height }).toEqual({ screen, phoneFieldBottom: true });
          expect(await wordsSplit(page, '.details dd')).toEqual([]);
          expect(await linesOf(page, '.details dd:nth-of-type(2)')).toBeLessThanOrEqual(2);
          expect(plain(await page.locator('#phone-hint').innerText())).toBe(plain(t('field.phone_hint', { national: '0551 23 45 67', international: '+213 551 23 45 67' })));
          await checkPage(tab, language, BRAND, shot('1-sign-in'));

          await signIn(tab, national, '0000');
          await expect(page.getByRole('alert').innerText()).resolves.toBe(t('error.sign_in_pin'));
          await expect(page.locator('#phone').inputValue()).resolves.toBe(national);
          for (const field of ['#phone', '#pin']) {
            await expect(page.locator(field).getAttribute('aria-invalid')).resolves.toBe('true');
            await expect(page.locator(field).getAttribute('aria-describedby')).resolves.toContain('form-error');
          }
          await expect(page.evaluate(() => (globalThis as any).document.activeElement?.id)).resolves.toBe('pin');
          // The attempts left before the lock: one wrong PIN of five.
          expect(plain(await page.locator('#lock-warning').innerText())).toBe(plain(t('warning.attempts_left_other', { attempts: 4, minutes: 15 })));
          await expect(page.locator('#pin').getAttribute('aria-describedby')).resolves.toBe('form-error lock-warning');
          await checkPage(tab, language, BRAND, shot('2-wrong-pin'));

          // The phone is still there: only the PIN is typed again.
          await signIn(tab, null, '1234');
          expect(plain(await page.locator('.who').innerText())).toContain(plain(`${t('field.signed_in_as')} Amina Benali`));
          await page.getByRole('button', { name: t('action.sign_out'), exact: true }).waitFor({ state: 'visible' });
          await checkPage(tab, language, BRAND, shot('3-confirm'));

          await page.locator('form[action$="/authorize"] button').click();
          await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');
          const shown = await plainText(page);
          expect(shown).not.toContain(plain(t('field.authorize_before')));
          expect(shown).toContain(plain(t('field.paid_at')));
          expect(shown).toContain(created.id);
          const back = page.locator('main a.button');
          expect(plain(await back.innerText())).toBe(plain(t('action.return_to_merchant', { merchant: MERCHANT })));
          expect(await back.getAttribute('href')).toBe(`https://shop.example/return?payment_id=${created.id}`);
          expect((await back.boundingBox())!.height).toBeGreaterThanOrEqual(44);
          expect(await wordsSplit(page, '.details dd')).toEqual([]);
          await checkPage(tab, language, BRAND, shot('4-paid'));

          await page.getByRole('button', { name: t('action.sign_out'), exact: true }).click();
          await expect(page.locator('.who').count()).resolves.toBe(0);
          expect(tab.problems).toEqual([]);
          await tab.context.close();
        });
      }

      it('not enough money is told apart from a refusal, and says to top up', async () => {
        const { phone } = await customer(100_000);
        const created = await payment();
        const tab = await openTab(browser, language, 'small');
        const { page, t } = tab;
        await page.goto(url(created.authorization_url));
        await signIn(tab, phone, '1234');
        await page.locator('form[action$="/authorize"] button').click();
        await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('declined');
        const outcome = plain(await page.getByRole('status').innerText());
        const amount = plain(await page.locator('.amount').innerText());
        expect(outcome).toBe(plain(t('payment.done_insufficient', { amount, merchant: MERCHANT })));
        expect(outcome).not.toBe(plain(t('payment.done_declined')));
        await checkPage(tab, language, BRAND, `everyday-${language}-small-insufficient`);
        await tab.context.close();
      });

      it('"form expired" and "sign in first" lead back to the page, and their language switch works', async () => {
        await customer(5_000_000);
        const created = await payment();
        const other: Language = language === 'ar' ? 'en' : 'ar';
        const tab = await openTab(browser, language, 'small');
        const { page, t } = tab;
        await page.goto(url(created.authorization_url));
        await tab.context.clearCookies(); // the sign-in form's token no longer matches a cookie
        await signIn(tab, '+213661999999', '1234');
        await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(t('page.form_expired'));
        expect(tab.problems).toEqual(['console: Failed to load resource: the server responded with a status of 403 (Forbidden)']);
        tab.problems.splice(0); // the refusal's own status, as it should be
        await checkPage(tab, language, BRAND, `everyday-${language}-small-form-expired`);
        await page.locator(`.languages a[hreflang="${other}"]`).click();
        expect(await page.locator('html').getAttribute('lang')).toBe(other);
        await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(MERCHANT);
        await page.goto(url(created.authorization_url) + `?lang=${language}`);

        // Signed out meanwhile (another tab), the customer clicks Authorize.
        const { phone } = await customer(5_000_000);
        await signIn(tab, phone, '1234');
        await tab.context.clearCookies();
        await page.locator('form[action$="/authorize"] button').click();
        await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(t('page.sign_in_first'));
        tab.problems.splice(0); // its 403
        await checkPage(tab, language, BRAND, `everyday-${language}-small-sign-in-first`);
        await page.getByRole('link', { name: t('action.sign_in'), exact: true }).click();
        await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(MERCHANT);
        await page.locator('#phone').waitFor({ state: 'visible' });
        expect(tab.problems).toEqual([]);
        await tab.context.close();
      });

      it('the approval page’s large figure is what is debited: the amount and the fee; its sign-in is above the fold', async () => {
        const login = `approver${++counter}@atlas.example`;
        await service.admin('POST', '/admin/v1/business_users', { body: { business, name: 'Karim', login, password: PASSWORD } });
        const created = await post('/v1/supplier_payments', { payer_connection: business, beneficiary, amount: 5_000_000, currency: 'DZD', invoice_reference: `FAC-${counter}`, description: 'Fournitures' });
        const tab = await openTab(browser, language, 'small');
        const { page, t } = tab;
        await page.goto(url(created.approval_url));
        const total = await page.locator('.details dt', { hasText: t('field.total_debited') }).locator('xpath=following-sibling::dd[1]').innerText();
        const fee = await page.locator('.details dt', { hasText: t('field.fee') }).locator('xpath=following-sibling::dd[1]').innerText();
        const amount = await page.locator('.details dt', { hasText: t('field.amount') }).locator('xpath=following-sibling::dd[1]').innerText();
        expect(plain(fee)).not.toBe(plain(amount));
        expect(plain(await page.locator('.amount').innerText())).toBe(plain(total));
        expect(plain(await page.locator('.breakdown').innerText())).toBe(plain(t('approval.total_breakdown', { amount, fee })));
        expect(await wordsSplit(page, '.details dd')).toEqual([]);
        const loginBox = (await page.locator('#login').boundingBox())!;
        expect(loginBox.y + loginBox.height).toBeLessThanOrEqual(SCREENS.small.height);
        await checkPage(tab, language, BRAND, `everyday-${language}-small-approval`);
        // A wrong password: the attempts left before the lock, under the password.
        await page.getByLabel(t('field.login'), { exact: true }).fill(login);
        await page.getByLabel(t('field.password'), { exact: true }).fill('not the password');
        await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
        await page.waitForURL(/\?error=sign_in/);
        expect(plain(await page.locator('#lock-warning').innerText())).toBe(plain(t('warning.attempts_left_other', { attempts: 4, minutes: 15 })));
        await expect(page.locator('#password').getAttribute('aria-describedby')).resolves.toBe('form-error lock-warning');
        await checkPage(tab, language, BRAND, `everyday-${language}-small-approval-wrong-password`);
        await tab.context.close();
      });

      it('agents: amounts typed as the screen shows them, deposits expected here listed, a confirm step for a different amount, the carrier told where to deposit', async () => {
        const signInAgent = async (role: 'cashier' | 'carrier') => {
          const login = `everyday-${role}-${++counter}`;
          expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: depositPoint, name: `Yacine ${counter}`, login, password: PASSWORD, role } })).status).toBe(201);
          const tab = await openTab(browser, language, 'small');
          await tab.page.goto(`${service.url}/hosted/agent`);
          await tab.page.getByLabel(tab.t('field.login'), { exact: true }).fill(login);
          await tab.page.getByLabel(tab.t('field.password'), { exact: true }).fill(PASSWORD);
          await tab.page.getByRole('button', { name: tab.t('action.sign_in'), exact: true }).click();
          return tab;
        };

        // A cash payment of 4 800,00: the cashier types it as their screen writes it.
        const cash = await post('/v1/cash_payments', { amount: 480_000, currency: 'DZD', order_reference: `CMD-${++counter}`, merchant_connection: merchant });
        const cashier = await signInAgent('cashier');
        const t = cashier.t;
        await cashier.page.getByLabel(t('field.payment_reference'), { exact: true }).fill(cash.payment_reference);
        await cashier.page.getByRole('button', { name: t('action.find_payment'), exact: true }).click();
        expect(await plainText(cashier.page)).toContain(plain(SHOWN[language].cash));
        await cashier.page.getByLabel(t('field.cash_received', { currency: 'DZD' }), { exact: true }).fill(SHOWN[language].typedCash);
        await cashier.page.getByRole('button', { name: t('action.validate_cash'), exact: true }).click();
        await expect(cashier.page.locator('.status').getAttribute('data-status')).resolves.toBe('succeeded');

        // A collection of 9 000,00: the carrier is told where and by when to deposit it.
        const collection = await post('/v1/collections', { amount: 900_000, currency: 'DZD', order_reference: `LIV-${++counter}`, beneficiary_connection: wholesaler });
        const code = (await service.http('GET', `/v1/collections/${collection.id}/handover_code`, { key: shop.apiKey })).body.code as string;
        const carrier = await signInAgent('carrier');
        await carrier.page.getByLabel(t('field.collection_id'), { exact: true }).fill(collection.id);
        await carrier.page.getByLabel(t('field.handover_code'), { exact: true }).fill(code);
        await carrier.page.getByRole('button', { name: t('action.confirm_handover'), exact: true }).click();
        await expect(carrier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
        const where = plain(await carrier.page.locator('#deposit-where').innerText());
        for (const expected of ['Kiosque Bab Ezzouar', 'Centre commercial, Bab Ezzouar, Alger', t('zone.Africa/Algiers')]) expect(where).toContain(plain(expected));
        expect(await wordsSplit(carrier.page, '.details dd')).toEqual([]);
        await checkPage(carrier, language, BRAND, `everyday-${language}-small-carrier-deposit-where`);
        await carrier.context.close();

        // The cashier finds it listed (no 28-character id to type), types 8 500,00 and is asked to confirm.
        await cashier.page.goto(`${service.url}/hosted/agent`);
        const listed = cashier.page.locator('.deposits a', { hasText: 'Grossiste Sétif' });
        expect(plain(await listed.innerText())).toContain(plain(SHOWN[language].expected));
        await checkPage(cashier, language, BRAND, `everyday-${language}-small-cashier-home`);
        await listed.click();
        const received = () => cashier.page.getByLabel(t('field.cash_received', { currency: 'DZD' }), { exact: true });
        await received().fill(SHOWN[language].typedShort);
        await cashier.page.getByRole('button', { name: t('action.validate_deposit'), exact: true }).click();
        expect(plain(await cashier.page.getByRole('alert').innerText())).toBe(plain(t('agent.confirm_amount', { typed: SHOWN[language].short, expected: SHOWN[language].expected })));
        await expect(cashier.page.locator('.status').getAttribute('data-status')).resolves.toBe('collected_awaiting_deposit');
        await checkPage(cashier, language, BRAND, `everyday-${language}-small-deposit-confirm`);
        await cashier.page.getByRole('link', { name: t('action.retype_amount'), exact: true }).click();
        await received().fill(TYPED_EXPECTED[language]);
        await cashier.page.getByRole('button', { name: t('action.validate_deposit'), exact: true }).click();
        await expect(cashier.page.locator('.status').getAttribute('data-status')).resolves.toBe('settled');
        expect(cashier.problems).toEqual([]);
        await cashier.context.close();
      });
    });
  }
});
