import { LANGUAGES } from '../languages';
import { CATALOGUES, catalogueProblems, translator } from './index';

describe('message catalogues', () => {
  it.each(LANGUAGES.filter((l) => l !== 'fr'))('%s has exactly the French keys, with the same placeholders', (language) => {
    expect(catalogueProblems(CATALOGUES.fr, CATALOGUES[language])).toEqual([]);
  });

  it('a key missing in one language, or an extra one, or a changed placeholder, is reported', () => {
    const { ['action.sign_in']: _dropped, ...missing } = CATALOGUES.en;
    expect(catalogueProblems(CATALOGUES.fr, missing)).toEqual(['missing key action.sign_in']);
    expect(catalogueProblems(CATALOGUES.fr, { ...CATALOGUES.en, 'action.fly': 'Fly' })).toEqual(['extra key action.fly']);
    expect(catalogueProblems(CATALOGUES.fr, { ...CATALOGUES.en, 'action.authorize': 'Authorize {sum}' })).toEqual(['placeholders of action.authorize differ']);
  });

  it('no message is empty or carries markup (messages are text, escaped when rendered)', () => {
    for (const language of LANGUAGES) {
      for (const [key, text] of Object.entries(CATALOGUES[language])) {
        expect({ language, key, empty: text.trim() === '', markup: /[<>]/.test(text) }).toEqual({ language, key, empty: false, markup: false });
      }
    }
  });

  it('fills placeholders, and leaves a missing one visible', () => {
    const t = translator('en');
    expect(t('action.authorize', { amount: 'DZD 12,500.00' })).toBe('Authorize \u2068DZD 12,500.00\u2069');
    expect(t('action.authorize')).toBe('Authorize {amount}');
    expect(translator('ar')('action.return_to_merchant', { merchant: 'Test shop' })).toBe('العودة إلى \u2068Test shop\u2069'); // isolated in a right-to-left sentence
  });

  it('isolates every filled value in every language: a right-to-left override in a merchant name stays inside it', () => {
    const evil = '\u202Epohs'; // RIGHT-TO-LEFT OVERRIDE: shown as "shop", and everything after it reversed
    expect(translator('fr')('payment.title', { merchant: evil })).toBe('Paiement à \u2068\u202Epohs\u2069');
    expect(translator('en')('action.return_to_merchant', { merchant: evil })).toBe('Return to \u2068\u202Epohs\u2069');
    expect(translator('ar')('action.return_to_merchant', { merchant: evil })).toBe('العودة إلى \u2068\u202Epohs\u2069');
    for (const language of LANGUAGES) {
      const sentence = translator(language)('action.authorize', { amount: `${evil}12` });
      expect(overrideLeaks(sentence)).toBe(false);
    }
  });

  it('a value cannot close its isolate early or leave one open: stray isolate marks in it are balanced', () => {
    const t = translator('en');
    // A PDI of its own would end the isolate before the override, which would then run to the end of the sentence.
    expect(t('payment.title', { merchant: 'a\u2069\u202Eb' })).toBe('Payment to \u2068a\u202Eb\u2069');
    expect(t('payment.title', { merchant: 'a\u2067b' })).toBe('Payment to \u2066a\u2067b\u2069\u2069');
    for (const language of LANGUAGES) expect(overrideLeaks(translator(language)('payment.title', { merchant: '\u2069\u2069\u202E\u2066x' }))).toBe(false);
  });

  it('a value is one line: a paragraph separator in it, which would end the isolate and let an override after it run on, is a space', () => {
    expect(translator('en')('payment.title', { merchant: 'a\u2029\u202Eb\nc' })).toBe('Payment to \u2068a \u202Eb c\u2069');
  });

  it('a value that is itself a filled message keeps its isolates, isolated in the direction of the sentence', () => {
    const inner = translator('en')('action.authorize', { amount: 'DZD 1.00' });
    expect(translator('en')('payment.title', { merchant: inner })).toBe(`Payment to \u2066${inner}\u2069`);
    const innerAr = translator('ar')('action.authorize', { amount: 'DZD 1.00' });
    expect(translator('ar')('payment.title', { merchant: innerAr }).endsWith(`\u2067${innerAr}\u2069`)).toBe(true);
  });
});

/**
 * True when an embedding or override (LRE, RLE, LRO, RLO) sits outside every isolate of `text`, or its
 * isolates do not pair up: an isolate's PDI ends the embeddings and overrides opened inside it (UAX #9, X6a).
 */
const overrideLeaks = (text: string): boolean => {
  let depth = 0;
  for (const c of text) {
    if (/[\u2066-\u2068]/.test(c)) depth++;
    else if (c === '\u2069') {
      if (depth === 0) return true; // a PDI with no isolate to close: the text's structure is broken
      depth--;
    } else if (/[\u202A-\u202E]/.test(c) && depth === 0) return true;
  }
  return depth !== 0;
};
