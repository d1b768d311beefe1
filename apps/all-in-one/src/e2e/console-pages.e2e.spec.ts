import type { Browser } from 'playwright-core';
import { LANGUAGES } from '@pay/hosted-ui';
import { launchBrowser } from './browser';
import { checkConsolePage, consoleTab } from './console-checks';
import { VIEWPORTS, type Viewport } from './hosted-checks';
import { startTestService, type TestService } from './harness';

// A browser and a service on a busy machine: generous bounds.
jest.setTimeout(300_000);

describe('console: pages in every language, at phone and desktop widths, for each role', () => {
  let service: TestService;
  let browser: Browser;
  let financeKey: string;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Console' } });
    expect(finance.status).toBe(201);
    financeKey = finance.body.api_key;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it.each(LANGUAGES.flatMap((language) => (Object.keys(VIEWPORTS) as Viewport[]).map((viewport) => [language, viewport] as const)))(
    'the search page (%s, %s), for the admin and for finance',
    async (language, viewport) => {
      for (const [role, key] of [['admin', service.adminKey], ['finance', financeKey]] as const) {
        const tab = await consoleTab(browser, service.url, key, language, viewport);
        try {
          await tab.page.goto(`${service.url}/console/search?lang=${language}`);
          await checkConsolePage(tab, language, `${language}/${viewport}/search-${role}`);
        } finally {
          await tab.context.close();
        }
      }
    },
  );
});
