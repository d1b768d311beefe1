import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Eta } from 'eta';
import type { Currency } from '@pay/kernel';
import { brandPalette, type Brand } from './brand';
import { formatDateTime, formatMoney } from './format';
import { translator, type MessageKey, type MessageParams, type Translate } from './i18n';
import { directionOf, LANGUAGE_NAMES, LANGUAGES, type Language } from './languages';

/** The layout, the stylesheet and the partials every hosted page shares. */
export const SHARED_VIEWS_DIR = join(__dirname, '..', 'views');
/** Served by the gateway (CSP `style-src 'self'`: no inline style anywhere). */
export const STYLESHEET_PATH = '/hosted/assets/pages.css';
/** The brand's mark as the tab's icon (an image from this origin: `img-src 'self'`). */
export const ICON_PATH = '/hosted/assets/icon.svg';

/** What the layout needs to frame a page. */
export interface PageContext {
  lang: Language;
  dir: 'ltr' | 'rtl';
  /** The page's own title, translated; the layout adds the brand. */
  title: string;
  brandName: string;
  /** The language switch: plain links, no script; `?lang=` is remembered by the gateway (cookie). */
  languages: { code: Language; name: string; href: string; current: boolean }[];
  stylesheet: string;
  icon: string;
  /** Scripts of our own origin, allowed by the CSP nonce of this response only. */
  scripts?: readonly { src: string; nonce: string }[];
}

export const pageContext = (input: { language: Language; brandName: string; title: [MessageKey, MessageParams?]; scripts?: PageContext['scripts']; switchPath?: string }): PageContext => ({
  lang: input.language,
  dir: directionOf(input.language),
  title: translator(input.language)(...input.title),
  brandName: input.brandName,
  languages: LANGUAGES.map((code) => ({ code, name: LANGUAGE_NAMES[code], href: `${input.switchPath ?? ''}?lang=${code}`, current: code === input.language })),
  stylesheet: STYLESHEET_PATH,
  icon: ICON_PATH,
  ...(input.scripts?.length ? { scripts: input.scripts } : {}),
});

/** What every template reads besides its model: `it.page`, `it.t(key, params)`, `it.money(minor, currency)`, `it.time(iso, currency)`. */
export interface TemplateHelpers {
  page: PageContext;
  t: Translate;
  money: (amountMinor: number, currency: Currency) => string;
  time: (iso: string, currency: Currency) => string;
}
type Reserved = keyof TemplateHelpers | 'body';

/**
 * Eta templates (`views/*.eta`), all read and compiled once, at start: a missing or broken template
 * fails the start, not a customer's page. `<%= %>` escapes (autoEscape); raw `<%~ %>` is allowed only
 * for the layout's body and partials (views.unit.spec.ts checks every template).
 */
export class Views<Models extends { [View in keyof Models]: object & { [K in Reserved]?: never } }> {
  private readonly eta = new Eta({ autoEscape: true, useWith: false, cache: true });

  constructor(dir: string) {
    const loaded = new Set<string>();
    for (const folder of [SHARED_VIEWS_DIR, dir]) {
      for (const file of readdirSync(folder).filter((f) => f.endsWith('.eta'))) {
        const name = `@${basename(file, '.eta')}`;
        if (loaded.has(name)) throw new Error(`two templates named ${name} (${folder})`);
        loaded.add(name);
        this.eta.loadTemplate(name, readFileSync(join(folder, file), 'utf8'));
      }
    }
  }

  render<View extends keyof Models & string>(view: View, model: Models[View], page: PageContext): string {
    const t = translator(page.lang);
    const helpers: TemplateHelpers = {
      page,
      t,
      money: (amountMinor, currency) => formatMoney(amountMinor, currency, page.lang),
      time: (iso, currency) => formatDateTime(iso, currency, page.lang, t),
    };
    return this.eta.render(`@${view}`, { ...model, ...helpers });
  }
}

/** The shared stylesheet, its colours from the brand (validated `#rrggbb`, so safe in CSS). */
export const stylesheet = (brand: Brand): string => {
  const palette = brandPalette(brand);
  return `:root{--brand:${palette.brand};--on-brand:${palette.onBrand};--accent:${palette.accent}}\n${readFileSync(join(SHARED_VIEWS_DIR, 'pages.css'), 'utf8')}`;
};

/** The layout's mark (views/mark.eta) as a standalone SVG in the brand's colours, for the tab's icon. */
export const iconSvg = (brand: Brand): string => {
  const palette = brandPalette(brand);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="9" fill="${palette.brand}"/><path d="M9 16.5l4.6 4.6L23 11.5" fill="none" stroke="${palette.onBrand}" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
};
