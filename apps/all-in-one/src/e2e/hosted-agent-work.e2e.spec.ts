import type { Browser, Page } from 'playwright-core';
import { LANGUAGES } from '@pay/hosted-ui';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser } from './browser';
import { checkPage, openTab, plain, SCREENS, type HostedTab, type Screen } from './hosted-checks';
import { balanceOf, createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * What the cash agents are expected to handle, in a real browser, in French, Arabic and English, on a
 * small phone, a phone and a desktop: the carrier's pickups waiting and the cash they hold (with where
 * to deposit it), the cashier's expected deposits, each row opening the collection (no id to type);
 * the handover from the collection's page; its QR code for the cashier; a form posted once however
 * often it is tapped, and a second post of the same action answered with the page, not an error.
 */
const BRAND = 'Pay';
const PASSWORD = 'correct horse battery';
const POINT = { name: 'Kiosque Bab Ezzouar', address: 'Centre commercial, Bab Ezzouar, Alger' };
const WHOLESALER = 'Grossiste Sétif';
/** 9 000,00 DZD as each language writes it. */
const AMOUNT = { fr: '9 000,00 DA', ar: '9.000,00 د.ج.', en: 'DZD 9,000.00' } as const;

describe('the agents’ lists, handovers from a list, the collection’s QR code and forms posted once', () => {
  let service: TestService;
  let browser: Browser;
  let shop: Integrator;
  let wholesaler: string;
  let point: string;
  let counter = 0;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startTestService({ BRAND_NAME: BRAND }), launchBrowser()]);
    shop = await createIntegrator(service);
    wholesaler = (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'wholesaler', name: WHOLESALER, currency: 'DZD' } })).body.id;
    // The first cash point registered is the collections' deposit point.
    point = (await service.admin('POST', '/admin/v1/cash_points', { body: POINT })).body.id;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const collection = async () => {
    const response = await service.http('POST', '/v1/collections', {
      key: shop.apiKey,
      body: { amount: 900_000, currency: 'DZD', order_reference: `LIV-${++counter}-${Date.now() % 100000}`, beneficiary_connection: wholesaler },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(response.status).toBe(201);
    const code = (await service.http('GET', `/v1/collections/${response.body.id}/handover_code`, { key: shop.apiKey })).body.code as string;
    return { ...response.body, code } as { id: string; order_reference: string; code: string };
  };
  const signInAgent = async (tab: HostedTab, role: 'cashier' | 'carrier') => {
    const login = `work-${role}-${++counter}`;
    const created = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: `Yacine ${counter}`, login, password: PASSWORD, role } });
    expect(created.status).toBe(201);
    await tab.page.goto(`${service.url}/hosted/agent`);
    await tab.page.getByLabel(tab.t('field.login'), { exact: true }).fill(login);
    await tab.page.getByLabel(tab.t('field.password'), { exact: true }).fill(PASSWORD);
    await tab.page.getByRole('button', { name: tab.t('action.sign_in'), exact: true }).click();
    await tab.page.locator('.eyebrow').first().waitFor();
    return created.body.id as string;
  };
  const row = (page: Page, list: string, collectionId: string) => page.locator(`[data-list="${list}"] li`).filter({ has: page.locator(`a[href$="/${collectionId}"]`) });
  /**
   * The POSTs the page sends to `path`, each held `holdMs` (the network of a busy phone), and what the
   * page shows meanwhile, as the page itself reports it (the busy buttons' text, how many are enabled).
   */
  const postsTo = async (page: Page, path: string, holdMs: number) => {
    const seen: { posts: string[]; whilePosting: { busy: string[]; enabled: number }[] } = { posts: [], whilePosting: [] };
    await page.exposeFunction('reportButtons', (state: { busy: string[]; enabled: number }) => void seen.whilePosting.push(state));
    await page.evaluate(() => {
      const doc = (globalThis as any).document;
      new (globalThis as any).MutationObserver(() => {
        const buttons = Array.from(doc.querySelectorAll('main button') as ArrayLike<any>);
        (globalThis as any).reportButtons({ busy: buttons.filter((b) => b.getAttribute('aria-busy') === 'true').map((b) => b.textContent as string), enabled: buttons.filter((b) => !b.disabled).length });
      }).observe(doc.querySelector('main'), { subtree: true, attributes: true, childList: true, characterData: true });
    });
    await page.route(`**${path}`, async (route) => {
      if (route.request().method() === 'POST') {
        seen.posts.push(route.request().postData() ?? '');
        await new Promise((resolve) => setTimeout(resolve, holdMs));
      }
      await route.continue();
    });
    return seen;
  };

  for (const language of LANGUAGES) {
    describe(`in ${language}`, () => {
      for (const screen of Object.keys(SCREENS) as Screen[]) {
        const shot = (name: string) => `agent-work-${language}-${screen}-${name}`;

        it(`${screen}: the carrier picks up from their list (a double tap posts once) and is told where to deposit; the cashier finds it in theirs`, async () => {
          const col = await collection();
          const carrier = await openTab(browser, language, screen);
          const { page, t } = carrier;
          await signInAgent(carrier, 'carrier');

          // The pickup waits in the carrier's list: recipient, amount, order; the row opens the collection.
          const pickup = row(page, 'pickups', col.id);
          const pickupText = plain(await pickup.innerText());
          for (const expected of [WHOLESALER, AMOUNT[language], t('agent.item_order', { order: col.order_reference })]) expect(pickupText).toContain(plain(expected));
          expect(await row(page, 'to-deposit', col.id).count()).toBe(0);
          await checkPage(carrier, language, BRAND, shot('1-carrier-home'));
          await pickup.locator('a').click();
          await page.waitForURL(new RegExp(`/hosted/agent/collections/${col.id}$`));
          await checkPage(carrier, language, BRAND, shot('2-pickup'));

          // The handover from the collection's page: tapped twice, posted once, "Processing…" meanwhile.
          const seen = await postsTo(page, '/hosted/agent/handover', 2_000);
          await page.getByLabel(t('field.handover_code'), { exact: true }).fill(col.code);
          await page.getByRole('button', { name: t('action.confirm_handover'), exact: true }).dblclick();
          await page.locator('.status[data-status="collected_awaiting_deposit"]').waitFor();
          expect(seen.posts).toHaveLength(1);
          expect(seen.whilePosting.at(-1)).toEqual({ busy: [t('layout.pending')], enabled: 0 });
          await page.unrouteAll({ behavior: 'wait' });

          // Where to deposit, and the QR code the cashier scans there.
          const where = plain(await page.locator('#deposit-where').innerText());
          for (const expected of [POINT.name, POINT.address]) expect(where).toContain(expected);
          const qr = page.locator('img.qr');
          await expect(qr.getAttribute('alt')).resolves.toBe(t('agent.qr_alt', { id: col.id }));
          // The page came from the handover's form: the element waited for above is there before the
          // document's images have loaded (page.goto waits for that load; a form's navigation does not).
          await page.waitForLoadState('load');
          await expect(qr.evaluate((img: any) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
          await checkPage(carrier, language, BRAND, shot('3-picked-up'));

          // Home again: no longer a pickup; in the cash to deposit, with the cash point.
          await page.goto(`${service.url}/hosted/agent`);
          expect(await row(page, 'pickups', col.id).count()).toBe(0);
          const held = plain(await row(page, 'to-deposit', col.id).innerText());
          expect(held).toContain(WHOLESALER);
          expect(held).toContain(POINT.name);
          await checkPage(carrier, language, BRAND, shot('4-carrier-to-deposit'));
          await carrier.context.close();

          // The cashier of the deposit point finds it in their list; the row opens its deposit form.
          const cashier = await openTab(browser, language, screen);
          await signInAgent(cashier, 'cashier');
          const expected = row(cashier.page, 'expected-deposits', col.id);
          expect(plain(await expected.innerText())).toContain(WHOLESALER);
          await checkPage(cashier, language, BRAND, shot('5-cashier-home'));
          await expected.locator('a').click();
          await cashier.page.getByLabel(cashier.t('field.cash_received', { currency: 'DZD' }), { exact: true }).waitFor();
          await cashier.context.close();
        }, 300_000);
      }

      it('a wrong handover code on the collection’s page is shown there, tied to the field', async () => {
        const col = await collection();
        const carrier = await openTab(browser, language, 'small');
        const { page, t } = carrier;
        await signInAgent(carrier, 'carrier');
        await row(page, 'pickups', col.id).locator('a').click();
        await page.getByLabel(t('field.handover_code'), { exact: true }).fill(col.code === '000000' ? '111111' : '000000');
        await page.getByRole('button', { name: t('action.confirm_handover'), exact: true }).click();
        await page.waitForURL(new RegExp(`/hosted/agent/collections/${col.id}\\?error=handover_code$`));
        expect(plain(await page.getByRole('alert').innerText())).toBe(plain(t('error.handover_code')));
        const code = page.getByLabel(t('field.handover_code'), { exact: true });
        await expect(code.getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(code.evaluate((el: any) => el === (globalThis as any).document.activeElement)).resolves.toBe(true);
        await checkPage(carrier, language, BRAND, `agent-work-${language}-small-wrong-code`);
        await carrier.context.close();
      }, 180_000);

      it('a wrong password says how many attempts are left before the lock, down to the last; then the lock', async () => {
        const login = `work-lock-${++counter}`;
        expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: 'Yacine', login, password: PASSWORD, role: 'cashier' } })).status).toBe(201);
        const tab = await openTab(browser, language, 'small');
        const { page, t } = tab;
        await page.goto(`${service.url}/hosted/agent`);
        const wrong = async () => {
          await page.getByLabel(t('field.login'), { exact: true }).fill(login);
          await page.getByLabel(t('field.password'), { exact: true }).fill('not the password');
          await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
          await page.waitForURL(/\?error=/);
        };
        for (const left of [4, 3, 2, 1]) {
          await wrong();
          const warning = left === 1 ? t('warning.attempts_left_one', { minutes: 15 }) : t('warning.attempts_left_other', { attempts: left, minutes: 15 });
          expect({ left, shown: plain(await page.locator('#lock-warning').innerText()) }).toEqual({ left, shown: plain(warning) });
          await expect(page.locator('#password').getAttribute('aria-describedby')).resolves.toBe('form-error lock-warning');
          if (left === 1) await checkPage(tab, language, BRAND, `agent-work-${language}-small-last-attempt`);
        }
        await wrong();
        expect(plain(await page.getByRole('alert').innerText())).toBe(plain(t('error.locked_password', { minutes: 15 })));
        expect(await page.locator('#lock-warning').count()).toBe(0);
        // A forged count in the address shows nothing.
        await page.goto(`${service.url}/hosted/agent?error=sign_in&left=0`);
        expect(await page.locator('#lock-warning').count()).toBe(0);
        await tab.context.close();
      }, 180_000);
    });
  }

  it('a second post of the same action (a double tap without script) is answered with the page, not an error, and counts once', async () => {
    const col = await collection();
    const carrier = await openTab(browser, 'en', 'phone');
    await signInAgent(carrier, 'carrier');
    const csrf = async (tab: HostedTab) => (await tab.page.locator('input[name="csrf"]').first().getAttribute('value'))!;
    const handover = { csrf: await csrf(carrier), collection: col.id, code: col.code };
    const twice = await Promise.all([1, 2].map(() => carrier.context.request.post(`${service.url}/hosted/agent/handover`, { form: handover, maxRedirects: 0 })));
    expect(twice.map((r) => [r.status(), r.headers()['location']])).toEqual([
      [303, `/hosted/agent/collections/${col.id}`],
      [303, `/hosted/agent/collections/${col.id}`],
    ]);
    await carrier.context.close();

    const cashier = await openTab(browser, 'en', 'phone');
    await signInAgent(cashier, 'cashier');
    const before = await balanceOf(service, wholesaler);
    const deposit = { csrf: await csrf(cashier), amount: '9000.00' };
    const both = await Promise.all([1, 2].map(() => cashier.context.request.post(`${service.url}/hosted/agent/collections/${col.id}/validate-deposit`, { form: deposit, maxRedirects: 0 })));
    expect(both.map((r) => [r.status(), r.headers()['location']])).toEqual([
      [303, `/hosted/agent/collections/${col.id}`],
      [303, `/hosted/agent/collections/${col.id}`],
    ]);
    const settled = (await service.http('GET', `/v1/collections/${col.id}`, { key: shop.apiKey })).body;
    expect(settled).toMatchObject({ status: 'settled', deposit: { amount_received: 900_000 } });
    expect(await balanceOf(service, wholesaler)).toBe(before + settled.settlement.net_amount);
    await cashier.context.close();
  }, 180_000);

  it('pages load their scripts under the response’s nonce only; a message page has none', async () => {
    const response = await fetch(`${service.url}/hosted/agent`);
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'$|script-src 'nonce-([A-Za-z0-9+/=]+)';/.exec(csp);
    expect(nonce).not.toBeNull();
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|script-src[^;]*'self'/);
    const html = await response.text();
    expect([...html.matchAll(/<script ([^>]*)>/g)].map((m) => m[1])).toEqual([`src="/hosted/assets/forms.js" nonce="${nonce![1] ?? nonce![2]}" defer`]);
    const script = await fetch(`${service.url}/hosted/assets/forms.js`);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    const signInFirst = await fetch(`${service.url}/hosted/agent/handover`, { method: 'POST', body: new URLSearchParams({ csrf: 'x' }) });
    expect(signInFirst.status).toBe(403);
    expect(signInFirst.headers.get('content-security-policy')).not.toMatch(/script-src/);
    expect(await signInFirst.text()).not.toMatch(/<script/);
  });
});
