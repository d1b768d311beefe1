import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium where installed (.ci/run installs it); CHROMIUM_PATH chooses another. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The browser the tests drive with playwright-core, never downloaded: CHROMIUM_PATH, else Debian's
 * Chromium, else the Chromium that the @sparticuz/chromium npm package ships (unpacked under /tmp on
 * first use), so that `npm install && npm test` needs nothing but Node.
 */
export async function chromiumPath(): Promise<string> {
  const chosen = process.env['CHROMIUM_PATH'];
  if (chosen) return chosen;
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  const { default: packaged } = (await import('@sparticuz/chromium')) as { default: { executablePath(): Promise<string> } };
  return packaged.executablePath();
}
/** A browser test's bound: it walks several pages, each a request and a render, on a machine that may be busy. */
export const BROWSER_TEST_TIMEOUT_MS = 300_000;

export const SCREENSHOTS = join(__dirname, '..', '..', '..', '..', 'artifacts', 'screenshots');

/** `extraArgs`: more Chromium switches (a fake camera for the agents' QR scanner). */
export const launchBrowser = async (extraArgs: string[] = []): Promise<Browser> =>
  chromium.launch({
    executablePath: await chromiumPath(),
    headless: true,
    // As this machine needs: no sandbox as root, and no background traffic to the closed network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });

/** Keeps a full-page screenshot under artifacts/screenshots (kept by CI, looked at by people); `name` may hold a folder. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  const path = join(SCREENSHOTS, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
};
