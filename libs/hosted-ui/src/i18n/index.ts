import { directionOf, type Language } from '../languages';
import { ar } from './ar';
import { en } from './en';
import { fr, type Catalogue, type MessageKey } from './fr';

export type { Catalogue, MessageKey };

export const CATALOGUES: Readonly<Record<Language, Catalogue>> = { fr, ar, en };

export type MessageParams = Readonly<Record<string, string | number>>;
export type Translate = (key: MessageKey, params?: MessageParams) => string;

const PLACEHOLDER = /\{(\w+)\}/g;

const ISOLATE_OPEN = /[\u2066-\u2068]/;
/** Bidi paragraph separators (class B): one would end the isolate's paragraph, and an override after it would run on to the sentence's end. */
const PARAGRAPH_SEPARATORS = /[\n\r\u001c-\u001e\u0085\u2029]/g;
const PDI = '\u2069';

/**
 * `value` with its isolates paired: a PDI with nothing to close is dropped (it would end the isolate
 * around the value, and an override after it would run on through the sentence), and one left open
 * is closed at the end.
 */
const balanceIsolates = (value: string): string => {
  if (!/[\u2066-\u2069]/.test(value)) return value;
  let open = 0;
  let balanced = '';
  for (const c of value) {
    if (ISOLATE_OPEN.test(c)) open++;
    else if (c === PDI) {
      if (open === 0) continue;
      open--;
    }
    balanced += c;
  }
  return balanced + PDI.repeat(open);
};

/**
 * A filled value is isolated (invisible marks) in every language, as one line: it keeps its own
 * direction and punctuation, and a bidi control inside it (a RIGHT-TO-LEFT OVERRIDE in a merchant's name) ends
 * with it rather than reversing the sentence around it, since a PDI ends every embedding and override
 * opened after its isolate. First-strong (FSI) for a name, an amount or `UTC+1`; the sentence's own
 * direction (LRI, RLI) for a value that is itself a translated message with isolates, whose direction
 * FSI cannot see.
 */
const isolateIn = (direction: 'ltr' | 'rtl') => (value: string): string => {
  const balanced = balanceIsolates(value.replace(PARAGRAPH_SEPARATORS, ' '));
  const opening = !/[\u2066-\u2069]/.test(balanced) ? '\u2068' : direction === 'rtl' ? '\u2067' : '\u2066';
  return `${opening}${balanced}${PDI}`;
};

/** The message of `key` in `language`, its `{name}` placeholders filled (a missing parameter stays visible as `{name}`). */
export const translator = (language: Language): Translate => {
  const fill = isolateIn(directionOf(language));
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
