import { latinDigits, parseAmount, type Currency } from '@pay/kernel';
import { localeOf } from './format';
import type { Language } from './languages';

/** Bidi marks and isolates that a copied amount may carry. */
const BIDI = /[\u200e\u200f\u061c\u2066-\u2069]/g;
const SPACES = /[\s\u00a0\u202f]/g;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Separators {
  group: string;
  decimal: string;
  /** The currency as the page writes it (`DA`, `د.ج.`, `DZD`, `F CFA`). */
  symbol: string;
}
const separators = new Map<string, Separators>();
const separatorsOf = (locale: string, currency: Currency): Separators => {
  const key = `${locale} ${currency}`;
  let found = separators.get(key);
  if (!found) {
    const parts = new Intl.NumberFormat(locale, { style: 'currency', currency }).formatToParts(1234567.5);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    found = { group: part('group').replace(SPACES, ''), decimal: part('decimal'), symbol: part('currency') };
    separators.set(key, found);
  }
  return found;
};

/** Thousands grouped by `group` (at least once), then optionally `decimal` and the decimals. */
const grouped = (group: string, decimal: string): RegExp => new RegExp(`^(\\d{1,3}(?:${escape(group)}\\d{3})+)(?:${escape(decimal)}(\\d+))?$`);

/**
 * An amount typed as the agent's page shows amounts, as minor units: `4,800.00` (English),
 * `4.800,00` or `٤٬٨٠٠٫٠٠` (Arabic), `4 800,00 DA` (French), the currency's symbol and code allowed;
 * the separators are Intl's for the language and the currency's country. Anything else is read by
 * parseAmount (`4800.00`, `4800,5`, `١٢٥٠٠٫٠٠`): one decimal separator, no grouping. Undefined when it
 * is no amount (0 only when `zeroAllowed`).
 */
export const parseTypedAmount = (typed: string, currency: Currency, language: Language, zeroAllowed = false): number | undefined => {
  const { group, decimal, symbol } = separatorsOf(localeOf(language, currency), currency);
  let text = typed.replace(BIDI, '');
  for (const name of [symbol, currency]) if (name) text = text.split(name).join('');
  text = latinDigits(text.replace(SPACES, ''));
  for (const [g, d] of [[group, decimal], ['\u066c', '\u066b']] as const) {
    if (!g) continue;
    const match = grouped(g, d).exec(text);
    if (match) return parseAmount(`${match[1]!.split(g).join('')}${match[2] !== undefined ? `.${match[2]}` : ''}`, currency, zeroAllowed);
  }
  return parseAmount(text, currency, zeroAllowed);
};
