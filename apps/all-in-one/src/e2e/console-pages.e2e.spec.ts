import type { Browser } from 'playwright-core';
import { LANGUAGES, type Language } from '@pay/hosted-ui';
import { launchBrowser } from './browser';
import { checkConsolePage, consoleScreenshot, consoleTab } from './console-checks';
import { openTab, plainText, VIEWPORTS, type Viewport } from './hosted-checks';
import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

// A browser and a service on a busy machine: generous bounds.
jest.setTimeout(600_000);

const HOSTILE_NAME = '<script>alert(1)</script> Boutique';

describe('console: sign in with each role and walk the pages, in every language, at phone and desktop widths', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;
  let financeKey: string;
  let shop: Integrator;
  let paymentId: string;
  let eventId: string;

  beforeAll(async () => {
    [service, browser, receiver] = await Promise.all([startTestService(), launchBrowser(), new Receiver().start()]);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Console' } });
    expect(finance.status).toBe(201);
    financeKey = finance.body.api_key;
    shop = await createIntegrator(service);
    // A merchant whose name holds markup: every page must show it as text.
    const hostile = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'merchant', name: HOSTILE_NAME, currency: 'DZD' } });
    expect(hostile.status).toBe(201);
    // The endpoint fails once, then takes the event: the page shows both attempts.
    receiver.reply({ status: 500 });
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: receiver.url, enabled_events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const payment = await createPayment(service, { ...shop, merchant: hostile.body.id }, { order_reference: '1001' });
    paymentId = payment.id;
    const payer = await createCustomer(service, 5_000_000);
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${paymentId}/authorize`, { key: shop.apiKey, body: { customer: payer } });
    expect(authorized.body.status).toBe('succeeded');
    // Another integrator's payment with the same order reference: the search lists both.
    const other = await createIntegrator(service);
    await createPayment(service, other, { order_reference: '1001' });
    // Until the succeeded event's first attempt is recorded.
    for (let i = 0; ; i++) {
      const events = await service.http('GET', `/v1/events?type=payment.succeeded`, { key: shop.apiKey });
      eventId = events.body.data[0]?.id;
      const deliveries = eventId ? await service.http('GET', `/v1/events/${eventId}/deliveries`, { key: shop.apiKey }) : undefined;
      if (deliveries?.body.data[0]?.attempts > 0) break;
      if (i > 120) throw new Error('no webhook attempt recorded');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await service?.stop();
  });

  it('"what happened to order 1001": search, the payment, its webhook attempt, in under five clicks; then a redelivery after its confirmation', async () => {
    const tab = await consoleTab(browser, service.url, service.adminKey, 'en', 'desktop');
    const { page } = tab;
    try {
      let clicks = 0;
      await page.locator('#q').fill('1001');
      await Promise.all([page.waitForURL(/\/console\/search\?q=1001/), page.locator('form[role="search"] button').click()]);
      clicks++;
      expect(await page.locator('table.data tbody tr').count()).toBe(2);
      await Promise.all([page.waitForURL(new RegExp(`/console/objects/${paymentId}`)), page.locator(`a[href="/console/objects/${paymentId}"]`).first().click()]);
      clicks++;
      // The fields by their labels, not the API's names; the amounts as money.
      const facts = await plainText(page, 'dl.facts');
      expect(facts).toContain(`${tab.t('console.label.order_reference')} 1001`);
      expect(facts).not.toMatch(/order_reference|merchant_connection|created_at/);
      expect(await page.locator('dl.facts .amount-inline').count()).toBeGreaterThan(0);
      const webhooks = await plainText(page, '#webhooks');
      expect(webhooks).toContain('payment.succeeded');
      expect(webhooks).toContain('HTTP 500');
      expect(clicks).toBeLessThan(5);
      // The merchant's name is text, not markup: no script ran, no dialog opened.
      expect(await plainText(page)).toContain(HOSTILE_NAME);
      expect(await page.locator('main script').count()).toBe(0);
      const timeline = await plainText(page, '.timeline');
      expect(timeline).toContain('payment.succeeded');
      expect(timeline).toContain(eventId);
      expect(await page.locator('a[href^="/console/accounts/"]').count()).toBeGreaterThan(0);
      // The redelivery: a confirmation page, then the form.
      await Promise.all([page.waitForURL(/\/redeliver\?event=/), page.locator(`a[href*="/redeliver?event=${eventId}"]`).click()]);
      await consoleScreenshot(page, 'en/desktop/redeliver-confirm');
      await Promise.all([page.waitForURL(/done=redelivered/), page.locator('form[action$="/redeliver"] button[type="submit"]').click()]);
      expect(await plainText(page, '#form-notice')).toContain(tab.t('console.object.redelivered'));
      expect(tab.problems).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it.each(LANGUAGES)('on a small phone (360×640, %s) the search results, an object’s postings and the operations tables fit its width: rows stacked, nothing scrolls sideways', async (language) => {
    const tab = await consoleTab(browser, service.url, service.adminKey, language, 'small');
    try {
      for (const [path, name] of [
        ['/console/search?q=1001', 'search-results'],
        [`/console/objects/${paymentId}`, 'payment'],
        ['/console/operations', 'operations'],
      ] as const) {
        await tab.page.goto(`${service.url}${path}`);
        await checkConsolePage(tab, language, `${language}/small/${name}`);
        expect({ name, stacked: (await tab.page.locator('.table-scroll:has(table.stack)').count()) > 0 }).toEqual({ name, stacked: true });
        // Every table of the page, stacked or not.
        const boxes = await tab.page.locator('.table-scroll').evaluateAll((all) => all.map((box) => ({ label: box.getAttribute('aria-label') ?? box.getAttribute('aria-labelledby'), overflow: Math.max(0, box.scrollWidth - box.clientWidth) })));
        for (const box of boxes) expect({ name, ...box }).toEqual({ name, label: box.label, overflow: 0 });
        const page = await tab.page.evaluate(() => {
          const root = (globalThis as any).document.documentElement;
          return { scrollWidth: root.scrollWidth as number, clientWidth: root.clientWidth as number };
        });
        expect(page.scrollWidth).toBeLessThanOrEqual(page.clientWidth);
      }
      // Each cell names its column, in the page's language.
      await tab.page.goto(`${service.url}/console/search?q=1001`);
      expect(await tab.page.locator('table.stack td').first().getAttribute('data-label')).toBe(tab.t('console.col.object'));
    } finally {
      await tab.context.close();
    }
  });

  const cases = LANGUAGES.flatMap((language) => (Object.keys(VIEWPORTS) as Viewport[]).map((viewport) => [language, viewport] as [Language, Viewport]));

  it.each(cases)('every page (%s, %s): the admin’s, finance’s (no action anywhere) and the sign-in', async (language, viewport) => {
    const signIn = await openTab(browser, language, viewport);
    try {
      await signIn.page.goto(`${service.url}/console/sign-in?lang=${language}`);
      await checkConsolePage(signIn, language, `${language}/${viewport}/sign-in`);
    } finally {
      await signIn.context.close();
    }
    for (const [role, key] of [['admin', service.adminKey], ['finance', financeKey]] as const) {
      const tab = await consoleTab(browser, service.url, key, language, viewport);
      const visit = async (path: string, name: string) => {
        await tab.page.goto(`${service.url}${path}`);
        await checkConsolePage(tab, language, `${language}/${viewport}/${name}-${role}`);
        if (role === 'finance') {
          // No action: the only form is the sign-out, no link to a confirmation step.
          expect({ name, forms: await tab.page.locator('form[method="post"]:not([action="/console/sign-out"])').count() }).toEqual({ name, forms: 0 });
          expect({ name, actions: await tab.page.locator('a[href*="/redeliver"], a[href*="/replay"]').count() }).toEqual({ name, actions: 0 });
        }
      };
      try {
        await visit(`/console/search?lang=${language}`, 'search');
        await visit(`/console/search?q=1001`, 'search-results');
        // Statuses in people's words in the page's language, the API's value kept in the title.
        const statuses = async (selector: string) => tab.page.locator(selector).evaluateAll((spans) => spans.map((s) => [s.textContent?.trim(), s.getAttribute('title')]));
        expect((await statuses('table.data .status')).sort()).toEqual(
          [
            [tab.t('console.status.payment.pending'), 'pending'],
            [tab.t('status.payment.succeeded'), 'succeeded'],
          ].sort(),
        );
        await visit(`/console/objects/${paymentId}`, 'payment');
        expect(await plainText(tab.page, 'dl.facts')).toContain(tab.t('console.label.merchant_connection'));
        expect(await statuses('.summary > p .status, dl.facts .status')).toEqual([
          [tab.t('status.payment.succeeded'), 'succeeded'],
          [tab.t('status.payment.succeeded'), 'succeeded'],
        ]);
        expect(await tab.page.locator('.timeline strong').evaluateAll((items) => items.map((i) => i.textContent?.trim()))).toEqual([tab.t('status.payment.succeeded')]);
        const deliveries = await statuses('#webhooks .delivery .status');
        expect(deliveries.length).toBeGreaterThan(0);
        for (const [text, value] of deliveries) expect(text).toBe(tab.t(`console.status.delivery.${value as 'pending' | 'succeeded' | 'failed' | 'canceled'}`));
        await visit(`/console/objects/${eventId}`, 'event');
        if (role === 'admin') {
          await visit(`/console/operations`, 'operations');
          await visit(`/console/objects/${paymentId}/redeliver?event=${eventId}`, 'redeliver-confirm');
          await visit(`/console/operations/redeliver`, 'redeliver-all-confirm');
        }
      } finally {
        await tab.context.close();
      }
    }
  });
});
