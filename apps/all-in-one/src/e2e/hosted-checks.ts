import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CATALOGUES, translator, type Language, type Translate } from '@pay/hosted-ui';
import { screenshot } from './browser';

/** What every hosted page must be, in every language and on every screen: the checks the browser specs share. */

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
export type Viewport = keyof typeof VIEWPORTS;
/** The same, with a small phone (360×640, the most common Android screen): where layouts break first. */
export const SCREENS = { small: { width: 360, height: 640 }, ...VIEWPORTS } as const;
export type Screen = keyof typeof SCREENS;
/** What a customer's browser asks for (Accept-Language), per language. */
export const BROWSER_LOCALE: Readonly<Record<Language, string>> = { fr: 'fr-DZ', ar: 'ar-DZ', en: 'en-GB' };

/** A message key or placeholder left in a page: a missing translation. */
const UNTRANSLATED = new RegExp(`\\b(${[...new Set(Object.keys(CATALOGUES.fr).map((k) => k.split('.')[0]))].join('|')})\\.[a-z_]+\\.?[a-z_]*\\b|\\{[a-z_]+\\}`);

export interface HostedTab {
  context: BrowserContext;
  page: Page;
  t: Translate;
  /** Console errors (CSP violations among them), page errors and dialogs (an alert() would be injected script). */
  problems: string[];
}

/** A browser tab as a customer's: a viewport, a language asked for, and anything going wrong recorded. */
export async function openTab(browser: Browser, language: Language, viewport: Screen): Promise<HostedTab> {
  const context = await browser.newContext({ viewport: SCREENS[viewport], locale: BROWSER_LOCALE[language] });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('response', (response) => {
    if (response.status() === 404) problems.push(`404: ${new URL(response.url()).pathname}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, t: translator(language), problems };
}

/** The main text with Intl's spaces as plain ones and without bidi marks and isolates, for comparisons. */
export const plainText = async (page: Page, selector = 'main'): Promise<string> => plain(await page.locator(selector).innerText());
export const plain = (text: string): string => text.replace(/[\s\u202f\u00a0]+/g, ' ').replace(/[\u200e\u200f\u061c\u2066-\u2069]/g, '');

/** Serious and critical accessibility violations found by axe-core (injected through the debugging protocol, which the page's CSP does not govern). */
export async function axeViolations(page: Page): Promise<unknown[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }));
  return (result.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: (v.nodes as any[]).slice(0, 3).map((n) => n.target.join(' ')) }));
}

/**
 * Checks a page in `language`: its lang and direction, the brand, the language switch, no untranslated
 * key, no horizontal scrolling, no serious accessibility violation, nothing gone wrong; then keeps a
 * screenshot under artifacts/screenshots/hosted/.
 */
export async function checkPage(tab: HostedTab, language: Language, brandName: string, shot: string): Promise<void> {
  const { page } = tab;
  await page.waitForLoadState('load');
  const html = page.locator('html');
  expect({ shot, lang: await html.getAttribute('lang'), dir: await html.getAttribute('dir') }).toEqual({ shot, lang: language, dir: language === 'ar' ? 'rtl' : 'ltr' });
  expect(await page.locator('.brand-name').innerText()).toBe(brandName);
  expect(await page.locator('.languages a[aria-current="page"]').getAttribute('hreflang')).toBe(language);
  const text = await page.locator('body').innerText();
  expect({ shot, untranslated: UNTRANSLATED.exec(text)?.[0] ?? null }).toEqual({ shot, untranslated: null });
  await expectSoundPage(tab, shot);
  await screenshot(page, `hosted/${shot}`);
}

/** What every checked page owes, hosted or console: no sideways scroll, no serious axe finding, no CSP or console problem. */
export async function expectSoundPage(tab: HostedTab, shot: string): Promise<void> {
  const { page } = tab;
  const overflow = await page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect({ shot, horizontalOverflow: overflow }).toEqual({ shot, horizontalOverflow: 0 });
  expect({ shot, axe: await axeViolations(page) }).toEqual({ shot, axe: [] });
  expect({ shot, problems: tab.problems }).toEqual({ shot, problems: [] });
}
