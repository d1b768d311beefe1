import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Language } from '@pay/hosted-ui';
import { axeViolations, openTab, plain, type HostedTab, type Screen } from './hosted-checks';

/** What the console's browser specs share: signing in, checking a page, keeping its screenshot under artifacts/console/. */

export const CONSOLE_SCREENSHOTS = join(__dirname, '..', '..', '..', '..', 'artifacts', 'console');

/** A tab signed in to the console at `baseUrl` with `key` (the admin key or a finance key), on the search page. */
export async function consoleTab(browser: Browser, baseUrl: string, key: string, language: Language = 'en', screen: Screen = 'desktop'): Promise<HostedTab> {
  const tab = await openTab(browser, language, screen);
  await signInConsole(tab.page, baseUrl, key);
  return tab;
}

/** Signs in with the console's own form, as a person would; ends on the search page. */
export async function signInConsole(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.locator('#key').fill(key);
  await Promise.all([page.waitForURL(/\/console\/search/), page.locator('form[action="/console/sign-in"] button[type="submit"]').click()]);
}

/**
 * Checks a console page in `language`: lang and direction, no untranslated key, no horizontal
 * scrolling, no serious or critical axe violation, nothing gone wrong (CSP included); then keeps a
 * full-page screenshot as artifacts/console/<shot>.png.
 */
export async function checkConsolePage(tab: HostedTab, language: Language, shot: string): Promise<void> {
  const { page } = tab;
  await page.waitForLoadState('load');
  const html = page.locator('html');
  expect({ shot, lang: await html.getAttribute('lang'), dir: await html.getAttribute('dir') }).toEqual({ shot, lang: language, dir: language === 'ar' ? 'rtl' : 'ltr' });
  const text = plain(await page.locator('body').innerText());
  expect({ shot, untranslated: /\bconsole\.[a-z_]+\.?[a-z_]*\b|\{[a-z_]+\}/.exec(text)?.[0] ?? null }).toEqual({ shot, untranslated: null });
  const overflow = await page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect({ shot, horizontalOverflow: overflow }).toEqual({ shot, horizontalOverflow: 0 });
  expect({ shot, axe: await axeViolations(page) }).toEqual({ shot, axe: [] });
  expect({ shot, problems: tab.problems }).toEqual({ shot, problems: [] });
  await consoleScreenshot(page, shot);
}

export const consoleScreenshot = async (page: Page, name: string): Promise<void> => {
  const path = join(CONSOLE_SCREENSHOTS, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
};
