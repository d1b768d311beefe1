import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Language } from '@pay/hosted-ui';
import { expectSoundPage, openTab, plain, type HostedTab, type Screen } from './hosted-checks';

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
  await expectSoundPage(tab, shot);
  await consoleScreenshot(page, shot);
}

export const consoleScreenshot = async (page: Page, name: string): Promise<void> => {
  const path = join(CONSOLE_SCREENSHOTS, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
};

/** A console session as a plain HTTP client holds it: the cookie header to send, and the session's CSRF token. */
export interface ConsoleHttpSession {
  cookie: string;
  csrf: string;
}

const cookieOf = (response: globalThis.Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`));

/** The sign-in form's CSRF cookie and token, as a browser gets them. */
export async function signInForm(baseUrl: string): Promise<{ cookie: string; csrf: string }> {
  const page = await fetch(`${baseUrl}/console/sign-in`);
  const cookie = cookieOf(page, 'pay_console_csrf')!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  return { cookie, csrf };
}

/** Posts the sign-in form with `key`; the raw answer (303 to the search, or back to the sign-in with `?error=`). */
export async function postSignIn(baseUrl: string, key: string, form?: { cookie: string; csrf: string }, fields: Record<string, string> = {}): Promise<globalThis.Response> {
  const { cookie, csrf } = form ?? (await signInForm(baseUrl));
  return fetch(`${baseUrl}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams({ csrf, key, ...fields }).toString(),
  });
}

/** Signs in over plain HTTP: the session cookie and its CSRF token (read from the sign-out form of the search page). */
export async function consoleSession(baseUrl: string, key: string): Promise<ConsoleHttpSession> {
  const response = await postSignIn(baseUrl, key);
  if (response.status !== 303 || !/\/console\/search$/.test(response.headers.get('location') ?? '')) throw new Error(`sign-in answered ${response.status} ${response.headers.get('location')}`);
  const cookie = cookieOf(response, 'pay_console')!;
  const page = await fetch(`${baseUrl}/console/search`, { headers: { Cookie: cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  return { cookie, csrf };
}

/** A console form post (urlencoded), redirects not followed. */
export const consolePost = (baseUrl: string, path: string, cookie: string, fields: Record<string, string>): Promise<globalThis.Response> =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
  });
