import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, screenshot } from './browser';
import { openTab } from './hosted-checks';
import { createIntegrator, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/**
 * The cashier's QR scanner, end to end: Chromium's fake camera films the customer's QR code (the PNG
 * at qr_code_url), the page's own script (allowed by its CSP nonce) reads it and posts the reference.
 * Chromium on Linux has no BarcodeDetector: the test gives the page one, built on jsQR, before its
 * scripts run (as a phone's browser has it built in).
 */
const PASSWORD = 'correct horse battery';
const FRAME = { width: 640, height: 480 };

/** One still frame (I420, grey) of the QR code centred on white, as a Y4M file Chromium loops as its camera. */
const cameraFilming = (png: PNG): string => {
  const luma = Buffer.alloc(FRAME.width * FRAME.height, 255);
  const [left, top] = [(FRAME.width - png.width) >> 1, (FRAME.height - png.height) >> 1];
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      luma[(top + y) * FRAME.width + left + x] = Math.round(0.299 * png.data[i]! + 0.587 * png.data[i + 1]! + 0.114 * png.data[i + 2]!);
    }
  }
  const chroma = Buffer.alloc((FRAME.width / 2) * (FRAME.height / 2), 128);
  const file = join(mkdtempSync(join(tmpdir(), 'camera-')), 'qr.y4m');
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${FRAME.width} H${FRAME.height} F30:1 Ip A1:1 C420jpeg\nFRAME\n`), luma, chroma, chroma]));
  return file;
};

/** BarcodeDetector (QR codes only) over jsQR, for a browser without one. */
const BARCODE_DETECTOR = `
window.BarcodeDetector = class {
  static async getSupportedFormats() { return ['qr_code']; }
  async detect(video) {
    if (!video.videoWidth) return [];
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext('2d');
    context.drawImage(video, 0, 0);
    const image = context.getImageData(0, 0, canvas.width, canvas.height);
    const code = jsQR(image.data, image.width, image.height);
    return code ? [{ rawValue: code.data, format: 'qr_code' }] : [];
  }
};`;

describe("the cashier's QR scanner", () => {
  let service: TestService;
  let shop: Integrator;
  let browser: Browser | undefined;
  /** The first cash point registered: it receives the collections' deposits. */
  let firstPoint: string | undefined;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('reads the customer’s QR code with the camera and opens the cash payment; the page’s script runs under its CSP nonce only', async () => {
    const point = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosque Bab Ezzouar', address: 'Alger' } })).body.id;
    firstPoint ??= point;
    expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: 'Yacine', login: 'scanner', password: PASSWORD, role: 'cashier' } })).status).toBe(201);
    const cash = (
      await service.http('POST', '/v1/cash_payments', {
        key: shop.apiKey,
        body: { amount: 1_250_000, currency: 'DZD', order_reference: 'CMD-QR', merchant_connection: shop.merchant },
        headers: { 'Idempotency-Key': idempotencyKey() },
      })
    ).body;
    const png = PNG.sync.read(Buffer.from(await (await fetch(`${service.url}${new URL(cash.qr_code_url).pathname}`)).arrayBuffer()));
    browser = await launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${cameraFilming(png)}`]);

    const tab = await openTab(browser, 'fr', 'phone');
    const { page, t } = tab;
    await tab.context.grantPermissions(['camera']);
    await page.addInitScript({ content: `${readFileSync(require.resolve('jsqr/dist/jsQR.js'), 'utf8')}\n${BARCODE_DETECTOR}` });
    await page.goto(`${service.url}/hosted/agent`);
    await page.getByLabel(t('field.login'), { exact: true }).fill('scanner');
    await page.getByLabel(t('field.password'), { exact: true }).fill(PASSWORD);
    const home = page.waitForResponse((r) => new URL(r.url()).pathname === '/hosted/agent' && r.request().method() === 'GET');
    await page.getByRole('button', { name: t('action.sign_in'), exact: true }).click();
    const headers = (await home).headers();
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(headers['content-security-policy'] ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(headers['permissions-policy']).toContain('camera=(self)');

    const scan = page.locator('form[action="/hosted/agent/find-cash-payment"]').getByRole('button', { name: t('action.scan'), exact: true });
    await scan.waitFor({ state: 'visible' }); // shown by the script: BarcodeDetector and a camera are there
    await screenshot(page, 'hosted/fr-phone-agent-scan-available');
    await Promise.all([page.waitForURL(/\/hosted\/agent\/cash_payments\//), scan.click()]);
    expect((await page.locator('main').innerText()).replace(/\s/g, '')).toContain(cash.payment_reference);
    await expect(page.locator('.status').getAttribute('data-status')).resolves.toBe('awaiting_payment');
    expect(tab.problems).toEqual([]);

    // A script added to a page without a nonce of its own response is refused, ours included.
    const refused: string[] = [];
    page.on('console', (m) => void refused.push(m.text()));
    await page.evaluate((src) => {
      const script = (globalThis as any).document.createElement('script');
      script.src = src;
      (globalThis as any).document.head.append(script);
    }, '/hosted/assets/agent-scan.js');
    for (let waited = 0; waited < 5_000 && !refused.some((text) => /Content Security Policy/.test(text)); waited += 100) await page.waitForTimeout(100);
    expect(refused).toEqual(expect.arrayContaining([expect.stringMatching(/Content Security Policy/)]));
    await tab.context.close();
  });

  it('reads the collection’s QR code on the carrier’s screen and opens the collection’s deposit; the carrier’s scan fills the id and moves to the code', async () => {
    const point = (firstPoint ??= (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Kiosque Bab Ezzouar', address: 'Alger' } })).body.id as string);
    const wholesaler = (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'wholesaler', name: 'Grossiste Sétif', currency: 'DZD' } })).body.id;
    const collection = async () =>
      (
        await service.http('POST', '/v1/collections', {
          key: shop.apiKey,
          body: { amount: 900_000, currency: 'DZD', order_reference: `LIV-QR-${Math.random()}`, beneficiary_connection: wholesaler },
          headers: { 'Idempotency-Key': idempotencyKey() },
        })
      ).body;
    const held = await collection();
    expect((await service.http('POST', `/v1/test_helpers/collections/${held.id}/confirm_handover`, { key: shop.apiKey })).status).toBe(200);
    for (const [login, role] of [['qr-carrier', 'carrier'], ['qr-cashier', 'cashier']] as const) {
      expect((await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: 'Yacine', login, password: PASSWORD, role } })).status).toBe(201);
    }
    // The QR code the carrier's screen shows for the collection (their session reads it).
    await browser?.close();
    browser = await launchBrowser();
    const carrierTab = await openTab(browser, 'ar', 'phone');
    await carrierTab.page.goto(`${service.url}/hosted/agent`);
    const signIn = async (tab: typeof carrierTab, login: string) => {
      await tab.page.getByLabel(tab.t('field.login'), { exact: true }).fill(login);
      await tab.page.getByLabel(tab.t('field.password'), { exact: true }).fill(PASSWORD);
      await tab.page.getByRole('button', { name: tab.t('action.sign_in'), exact: true }).click();
      await tab.page.locator('.eyebrow').first().waitFor();
    };
    await signIn(carrierTab, 'qr-carrier');
    await carrierTab.page.goto(`${service.url}/hosted/agent/collections/${held.id}`);
    const src = await carrierTab.page.locator('img.qr').getAttribute('src');
    const png = PNG.sync.read(await (await carrierTab.context.request.get(`${service.url}${src}`)).body());
    await browser.close();

    browser = await launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${cameraFilming(png)}`]);
    for (const language of ['fr', 'ar', 'en'] as const) {
      const tab = await openTab(browser, language, 'small');
      await tab.context.grantPermissions(['camera']);
      await tab.page.addInitScript({ content: `${readFileSync(require.resolve('jsqr/dist/jsQR.js'), 'utf8')}\n${BARCODE_DETECTOR}` });
      await tab.page.goto(`${service.url}/hosted/agent`);
      await signIn(tab, 'qr-cashier');
      const form = tab.page.locator('form[action="/hosted/agent/find-collection"]');
      const scan = form.getByRole('button', { name: tab.t('action.scan'), exact: true });
      await scan.waitFor({ state: 'visible' });
      await screenshot(tab.page, `hosted/${language}-small-agent-scan-collection`);
      await Promise.all([tab.page.waitForURL(new RegExp(`/hosted/agent/collections/${held.id}$`)), scan.click()]);
      await tab.page.getByLabel(tab.t('field.cash_received', { currency: 'DZD' }), { exact: true }).waitFor();
      expect(tab.problems).toEqual([]);
      await tab.context.close();
    }

    // The carrier scans a collection's QR code (a label on the parcel): the id is filled, the code field focused.
    const waiting = await collection();
    await browser.close();
    const label = PNG.sync.read(await QRCode.toBuffer(waiting.id, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 }));
    browser = await launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${cameraFilming(label)}`]);
    const tab = await openTab(browser, 'en', 'small');
    await tab.context.grantPermissions(['camera']);
    await tab.page.addInitScript({ content: `${readFileSync(require.resolve('jsqr/dist/jsQR.js'), 'utf8')}\n${BARCODE_DETECTOR}` });
    await tab.page.goto(`${service.url}/hosted/agent`);
    await signIn(tab, 'qr-carrier');
    const handover = tab.page.locator('form[action="/hosted/agent/handover"]');
    await handover.getByRole('button', { name: tab.t('action.scan'), exact: true }).click();
    await tab.page.waitForFunction((id) => (globalThis as any).document.querySelector('#collection').value === id, waiting.id);
    await expect(tab.page.evaluate(() => (globalThis as any).document.activeElement.id)).resolves.toBe('code');
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  });
});