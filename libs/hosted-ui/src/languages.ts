import { ACCEPT_LANGUAGE_ENTRIES_MAX } from '@pay/kernel';

/** The languages of the hosted pages; French first: the default, when nothing else is known. */
export const LANGUAGES = ['fr', 'ar', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'fr';

/** Each language named in itself, as the switch shows it. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { fr: 'Français', ar: 'العربية', en: 'English' };

export const isLanguage = (value: unknown): value is Language => typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

export const directionOf = (language: Language): 'ltr' | 'rtl' => (language === 'ar' ? 'rtl' : 'ltr');

/**
 * The best of our languages in an Accept-Language header (`ar-DZ,fr;q=0.8`): highest q first, then
 * the header's order; `*` and unknown tags are skipped. Undefined when none matches.
 */
export function negotiateLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  let best: { language: Language; q: number } | undefined;
  for (const entry of header.split(',').slice(0, ACCEPT_LANGUAGE_ENTRIES_MAX)) {
    const [tag = '', ...params] = entry.trim().split(';');
    const primary = tag.trim().split('-')[0]!.toLowerCase();
    if (!isLanguage(primary)) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    if (!best || q > best.q) best = { language: primary, q };
  }
  return best?.language;
}

/**
 * The language of a page: the one just chosen with the switch (`?lang=`), else the one remembered
 * (cookie), else the browser's preference, else French.
 */
export const chooseLanguage = (sources: { query?: unknown; cookie?: string; acceptLanguage?: string }): Language =>
  (isLanguage(sources.query) ? sources.query : undefined) ??
  (isLanguage(sources.cookie) ? sources.cookie : undefined) ??
  negotiateLanguage(sources.acceptLanguage) ??
  DEFAULT_LANGUAGE;
