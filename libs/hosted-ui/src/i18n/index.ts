import { directionOf, type Language } from '../languages';
import { ar } from './ar';
import { en } from './en';
import { fr, type Catalogue, type MessageKey } from './fr';

export type { Catalogue, MessageKey };

export const CATALOGUES: Readonly<Record<Language, Catalogue>> = { fr, ar, en };

export type MessageParams = Readonly<Record<string, string | number>>;
export type Translate = (key: MessageKey, params?: MessageParams) => string;

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * In a right-to-left sentence, a value keeps its own direction and punctuation when isolated
 * (invisible marks): first-strong (FSI) for a name, an amount or `UTC+1`; right-to-left (RLI) for a
 * value that is itself a translated message with isolates, whose direction FSI cannot see.
 */
const isolateRtl = (value: string): string => `${/[\u2066-\u2069]/.test(value) ? '\u2067' : '\u2068'}${value}\u2069`;

/** The message of `key` in `language`, its `{name}` placeholders filled (a missing parameter stays visible as `{name}`). */
export const translator = (language: Language): Translate => {
  const fill = directionOf(language) === 'rtl' ? isolateRtl : (value: string) => value;
  return (key, params = {}) =>
    (CATALOGUES[language][key] ?? key).replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? fill(String(params[name])) : whole));
};

const placeholdersOf = (text: string): string => [...text.matchAll(PLACEHOLDER)].map((m) => m[1]).sort().join(',');

/**
 * What differs between a catalogue and the reference (French): keys missing or extra, and messages
 * whose placeholders differ. Empty when they match; the type already catches most of it, this
 * catches a catalogue built at run time or cast.
 */
export function catalogueProblems(reference: Readonly<Record<string, string>>, other: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(reference)) {
    if (!Object.hasOwn(other, key)) problems.push(`missing key ${key}`);
    else if (placeholdersOf(reference[key]!) !== placeholdersOf(other[key]!)) problems.push(`placeholders of ${key} differ`);
  }
  for (const key of Object.keys(other)) if (!Object.hasOwn(reference, key)) problems.push(`extra key ${key}`);
  return problems;
}
