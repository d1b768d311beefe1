import type { Browser, Page } from 'playwright-core';
import { LANGUAGES } from '@pay/hosted-ui';
import { launchBrowser } from './browser';
import { checkConsolePage, consoleScreenshot, consoleTab } from './console-checks';
import { VIEWPORTS, type Viewport } from './hosted-checks';
import { createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';
import { iban, statement } from './payouts-files';

// A browser and a service on a busy machine: generous bounds.
jest.setTimeout(600_000);

/** The Accounts and Finance pages of the console, each role, every language, phone and desktop. */
const PAGES = (merchant: string) => ({
  accounts: '/console/accounts',
  account: `/console/accounts/${merchant}`,
  trial: '/console/finance',
  fees: '/console/finance/fee-revenue',
  cash: '/console/finance/cash-in-transit',
  reconciliation: '/console/finance/reconciliation',
  chain: '/console/finance/ledger-chain',
  payouts: '/console/finance/payouts',
});

/** A statement id a hostile bank file could carry: in CDATA in the XML, `<script>…` once parsed. */
const HOSTILE_ID = '<script>x</script>';
const HOSTILE_XML_ID = `<![CDATA[${HOSTILE_ID}]]>`;

describe('console: Accounts and Finance', () => {
  let service: TestService;
  let browser: Browser;
  let financeKey: string;
  let shop: Integrator;
  let payoutId: string;
  let batchId: string;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Console' } });
    expect(finance.status).toBe(201);
    financeKey = finance.body.api_key;
    shop = await createIntegrator(service);
    const customer = await createCustomer(service, 10_000_000);
    for (const amount of [1_000_000, 2_500_000]) {
      const payment = await createPayment(service, shop, { amount });
      expect((await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } })).status).toBe(200);
    }
    const account = await service.http('POST', '/v1/bank_accounts', { key: shop.apiKey, body: { connection: shop.merchant, account_holder: 'Atlas <b>Trading</b>', iban: iban('DZ', '0002100001113000000570') }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(account.status).toBe(201);
    const payout = await service.http('POST', '/v1/payouts', { key: shop.apiKey, body: { connection: shop.merchant, bank_account: account.body.id, amount: 100_000, currency: 'DZD' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(payout.status).toBe(201);
    payoutId = payout.body.id;
    const batch = await service.admin('POST', '/admin/v1/payout_batches', { body: { currency: 'DZD' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(batch.status).toBe(201);
    batchId = batch.body.id;
    // A statement whose id holds markup: the imports' list must show it as text.
    const hostile = await service.admin('POST', '/admin/v1/bank_statements', { rawBody: statement(HOSTILE_XML_ID, [{ e2e: 'po_unknown', amount: '5.00', currency: 'DZD', indicator: 'DBIT', ref: 'H-1' }]), headers: { 'Content-Type': 'application/xml' } });
    expect(hostile.status).toBe(201);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const open = async (page: Page, path: string, language = 'en') => {
    const response = await page.goto(`${service.url}${path}${path.includes('?') ? '&' : '?'}lang=${language}`);
    return response!;
  };

  it.each(LANGUAGES.flatMap((language) => (Object.keys(VIEWPORTS) as Viewport[]).map((viewport) => [language, viewport] as const)))(
    'every page (%s, %s): the admin; finance at desktop width',
    async (language, viewport) => {
      const roles = viewport === 'desktop' ? ([['admin', service.adminKey], ['finance', financeKey]] as const) : ([['admin', service.adminKey]] as const);
      for (const [role, key] of roles) {
        const tab = await consoleTab(browser, service.url, key, language, viewport);
        try {
          for (const [name, path] of Object.entries(PAGES(shop.merchant))) {
            const response = await open(tab.page, path, language);
            expect({ name, status: response.status() }).toEqual({ name, status: 200 });
            await checkConsolePage(tab, language, `${language}/${viewport}/${name}-${role}`);
          }
        } finally {
          await tab.context.close();
        }
      }
    },
  );

  it('an account: balance now and as of a date, its chart, its statement and the CSV in the admin API’s columns', async () => {
    const tab = await consoleTab(browser, service.url, financeKey, 'fr', 'desktop');
    try {
      const page = tab.page;
      await open(page, '/console/accounts?kind=connection&currency=DZD', 'fr');
      await Promise.all([page.waitForURL(/\/console\/accounts\/conn_/), page.locator(`a[href="/console/accounts/${shop.merchant}"]`).click()]);
      const balance = (await service.admin('GET', `/admin/v1/balances/${shop.merchant}`)).body.available;
      expect(balance).toBeGreaterThan(0);
      const main = await page.locator('main').innerText();
      expect(main.replace(/[\s\u202f\u00a0]/g, '')).toContain(`${(balance / 100).toLocaleString('fr-FR', { minimumFractionDigits: 2 }).replace(/[\s\u202f\u00a0]/g, '')}`);
      // As of a date before the payments: nothing yet.
      await open(page, `/console/accounts/${shop.merchant}?as_of=2020-01-01`, 'fr');
      expect((await page.locator('#balance-as-of').innerText()).replace(/[^\d,]/g, '')).toBe('0,00');
      await open(page, `/console/accounts/${shop.merchant}`, 'fr');
      const chart = page.locator('svg.balance-chart');
      await expect(chart.getAttribute('role')).resolves.toBe('img');
      expect(await chart.locator('circle.point').count()).toBeGreaterThanOrEqual(2);
      expect(await chart.locator('circle.point title').first().textContent()).toMatch(/DA|DZD/);
      expect(await page.locator('#statement-card table.data tbody tr').count()).toBeGreaterThanOrEqual(2);
      // An entry's kind in the page's words, the API's value in its title.
      const payment = page.locator('#statement-card table.data tbody span[title="payment"]').first();
      expect(await payment.innerText()).toBe('Paiement');
      const csvHref = await page.locator('a[href*="statement.csv"]').getAttribute('href');
      const csv = await page.request.get(`${service.url}${csvHref}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
      const rows = (await csv.text()).trim().split('\n');
      expect(rows[0]).toBe('entry,reference,kind,created_at,direction,amount,balance_after');
      expect(rows.length).toBeGreaterThanOrEqual(3);
      const last = rows[rows.length - 1]!.split(',');
      expect(Number(last[6])).toBe(balance);
      // A malformed date is a page that says so, not a failure.
      expect((await open(page, `/console/accounts/${shop.merchant}?from=2026-02-30`, 'fr')).status()).toBe(400);
      expect((await open(page, '/console/accounts/no_such_account', 'fr')).status()).toBe(404);
      await consoleScreenshot(page, 'fr/desktop/account-errors-finance');
    } finally {
      await tab.context.close();
    }
  });

  it.each(LANGUAGES)("date fields (%s) take a date day first, DD/MM/YYYY as the page says, whatever the browser's locale, and write dates the same way", async (language) => {
    const tab = await consoleTab(browser, service.url, financeKey, language, 'desktop');
    try {
      const page = tab.page;
      await open(page, `/console/accounts/${shop.merchant}`, language);
      for (const id of ['as_of', 'from', 'to']) {
        const input = page.locator(`#${id}`);
        expect({ id, type: await input.getAttribute('type') }).toEqual({ id, type: 'text' });
        if (id !== 'as_of') expect({ id, value: await input.inputValue() }).toEqual({ id, value: expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}$/) });
        expect({ id, hint: await page.locator(`#${id}-format`).innerText() }).toEqual({ id, hint: tab.t('console.date_format') });
      }
      // Typed as a person would (Arabic-Indic digits on an Arabic keyboard), sent by the form.
      await page.locator('#as_of').fill(language === 'ar' ? '٠١/٠١/٢٠٢٠' : '01/01/2020');
      await Promise.all([page.waitForURL(/as_of=/), page.locator('form:has(#as_of) button[type="submit"]').click()]);
      expect((await page.locator('#balance-as-of').innerText()).replace(/[^\d,.]/g, '')).toMatch(/^0[,.]00/);
      expect(await page.locator('dt:has(+ #balance-as-of)').innerText()).toContain('01/01/2020');
      expect(await page.locator('#as_of').inputValue()).toBe('01/01/2020');
      expect(await page.locator('#statement').innerText()).toMatch(/\d{2}\/\d{2}\/\d{4}/);
      await checkConsolePage(tab, language, `${language}/desktop/account-as-of-finance`);
      // A date the form cannot read is a page that names the format.
      await page.locator('#as_of').fill('2020-31-01');
      const [refused] = await Promise.all([page.waitForResponse((r) => r.url().includes('as_of=')), page.locator('form:has(#as_of) button[type="submit"]').click()]);
      expect(refused.status()).toBe(400);
      await open(page, '/console/finance/fee-revenue', language);
      expect(await page.locator('#end').inputValue()).toMatch(/^\d{2}\/\d{4}$/);
      expect(await page.locator('#end-format').innerText()).toBe(tab.t('console.month_format'));
    } finally {
      await tab.context.close();
    }
  });

  it('finance sees no action, and every action it crafts is refused by the server', async () => {
    const tab = await consoleTab(browser, service.url, financeKey, 'en', 'desktop');
    try {
      const page = tab.page;
      for (const path of ['/console/finance/reconciliation?confirm=1', '/console/finance/ledger-chain?confirm=1', '/console/finance/payouts']) {
        await open(page, path);
        expect({ path, forms: await page.locator('main form[method="post"]').count(), downloads: await page.locator('a[href*="/file"]').count() }).toEqual({ path, forms: 0, downloads: 0 });
      }
      const csrf = await page.locator('form[action="/console/sign-out"] input[name="csrf"]').getAttribute('value');
      for (const [path, form] of [
        ['/console/finance/reconciliation', { csrf }],
        ['/console/finance/ledger-chain/verify', { csrf }],
        ['/console/finance/payouts/statements', { csrf, step: 'apply', statement: statement('STMT-FINANCE', []) }],
      ] as const) {
        const response = await page.request.post(`${service.url}${path}`, { form: form as Record<string, string> });
        expect({ path, status: response.status() }).toEqual({ path, status: 403 });
      }
      const file = await page.request.get(`${service.url}/console/finance/payouts/batches/${batchId}/file`);
      expect(file.status()).toBe(403);
      expect((await service.admin('GET', '/admin/v1/audit_events?action=reconciliation.created')).body.data).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('the admin runs a reconciliation and verifies the chain after confirming; finance then reads the results', async () => {
    const admin = await consoleTab(browser, service.url, service.adminKey, 'en', 'desktop');
    try {
      const page = admin.page;
      await open(page, '/console/finance/reconciliation');
      await Promise.all([page.waitForURL(/confirm=1/), page.locator('a[href="/console/finance/reconciliation?confirm=1"]').click()]);
      await checkConsolePage(admin, 'en', 'en/desktop/reconciliation-confirm-admin');
      await Promise.all([page.waitForURL(/done=reconciliation/, { timeout: 300_000 }), page.locator('#run-reconciliation').click()]);
      expect(await page.locator('main').innerText()).toMatch(/Balanced/);
      await checkConsolePage(admin, 'en', 'en/desktop/reconciliation-done-admin');
      await open(page, '/console/finance/ledger-chain?confirm=1');
      await Promise.all([page.waitForURL(/done=verification/, { timeout: 300_000 }), page.locator('#run-verification').click()]);
      expect(await page.locator('main').innerText()).toMatch(/Valid/);
      const head = (await service.admin('GET', '/admin/v1/ledger/chain/head')).body;
      expect(Number(await page.locator('#head-sequence').innerText())).toBeGreaterThanOrEqual(1);
      expect(head.sequence).toBeGreaterThanOrEqual(1);
      const audit = (await service.admin('GET', '/admin/v1/audit_events?action=reconciliation.created')).body.data;
      expect(audit).toHaveLength(1);
      expect(audit[0].actor).toEqual({ type: 'admin', id: null });
      // A run's id is its kind's prefix and random base62 characters, like every id: not sequential.
      expect(audit[0].target).toEqual({ object: 'reconciliation', id: expect.stringMatching(/^rec_[0-9A-Za-z]{20,}$/) });
      const verifications = (await service.admin('GET', '/admin/v1/audit_events?action=chain_verification.created')).body.data;
      expect(verifications.map((e: { target: unknown }) => e.target)).toEqual([{ object: 'chain_verification', id: expect.stringMatching(/^chv_[0-9A-Za-z]{20,}$/) }]);
    } finally {
      await admin.context.close();
    }
    const finance = await consoleTab(browser, service.url, financeKey, 'ar', 'phone');
    try {
      await open(finance.page, '/console/finance/reconciliation', 'ar');
      expect(await finance.page.locator('main span.status[data-status="balanced"]').count()).toBe(1);
      await checkConsolePage(finance, 'ar', 'ar/phone/reconciliation-result-finance');
    } finally {
      await finance.context.close();
    }
  });

  it('the admin downloads a batch’s pain.001 and imports a statement (read, confirm, apply); markup in a statement id is text', async () => {
    const tab = await consoleTab(browser, service.url, service.adminKey, 'fr', 'desktop');
    try {
      const page = tab.page;
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await open(page, '/console/finance/payouts', 'fr');
      expect(await page.locator('main').innerText()).toContain(HOSTILE_ID);
      expect(await page.locator('script').count()).toBe(0);
      const file = await page.request.get(`${service.url}/console/finance/payouts/batches/${batchId}/file`);
      expect(file.status()).toBe(200);
      expect(file.headers()['content-type']).toMatch(/^application\/xml/);
      expect(await file.text()).toContain(`<EndToEndId>${payoutId}</EndToEndId>`);

      await page.locator('#statement').fill(statement('STMT-CONSOLE-1', [{ e2e: payoutId, amount: '1000.00', currency: 'DZD', indicator: 'DBIT', ref: `C-${payoutId}` }]));
      await page.locator('form[action="/console/finance/payouts/statements"] button[type="submit"]').click();
      await page.locator('#apply-statement').waitFor();
      expect(await page.locator('main').innerText()).toContain('STMT-CONSOLE-1');
      await checkConsolePage(tab, 'fr', 'fr/desktop/payouts-review-admin');
      await page.locator('#apply-statement').click();
      await page.locator('#form-notice').waitFor();
      expect((await page.locator('#form-notice').innerText()).replace(/[\u2066-\u2069]/g, '')).toMatch(/1 payé/); // without the isolates around each value
      expect((await service.http('GET', `/v1/payouts/${payoutId}`, { key: shop.apiKey })).body.status).toBe('paid');
      await checkConsolePage(tab, 'fr', 'fr/desktop/payouts-imported-admin');

      // A file that is not a statement: a notice, nothing applied.
      await open(page, '/console/finance/payouts', 'fr');
      await page.locator('#statement').fill('<nope/>');
      await page.locator('form[action="/console/finance/payouts/statements"] button[type="submit"]').click();
      await page.locator('#form-notice').waitFor();
      expect(await page.locator('#form-notice').innerText()).toMatch(/ne peut pas être lu/);
      expect(dialogs).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
