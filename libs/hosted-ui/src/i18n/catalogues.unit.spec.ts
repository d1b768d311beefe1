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
    expect(t('action.authorize', { amount: 'DZD 12,500.00' })).toBe('Authorize DZD 12,500.00');
    expect(t('action.authorize')).toBe('Authorize {amount}');
    expect(translator('ar')('action.return_to_merchant', { merchant: 'Test shop' })).toBe('العودة إلى \u2068Test shop\u2069'); // isolated in a right-to-left sentence
  });
});
