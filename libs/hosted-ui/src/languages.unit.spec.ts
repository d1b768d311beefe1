import { chooseLanguage, directionOf, negotiateLanguage } from './languages';

describe('choosing the language of a page', () => {
  it('reads Accept-Language by quality, then order, ignoring what we do not speak', () => {
    expect(negotiateLanguage('ar-DZ,fr;q=0.8,en;q=0.5')).toBe('ar');
    expect(negotiateLanguage('de-DE,en-GB;q=0.7,fr;q=0.9')).toBe('fr');
    expect(negotiateLanguage('EN-us')).toBe('en');
    expect(negotiateLanguage('*, de')).toBeUndefined();
    expect(negotiateLanguage('ar;q=0, en;q=0.1')).toBe('en');
    expect(negotiateLanguage('fr;q=abc, ar;q=2, en')).toBe('en');
    expect(negotiateLanguage('')).toBeUndefined();
    expect(negotiateLanguage(`${'de,'.repeat(100)}ar`)).toBeUndefined(); // read no further than 20 entries
  });

  it('the switch (?lang=) wins, then the remembered choice, then the browser, then French', () => {
    expect(chooseLanguage({ query: 'en', cookie: 'ar', acceptLanguage: 'fr' })).toBe('en');
    expect(chooseLanguage({ query: ['en', 'ar'], cookie: 'ar', acceptLanguage: 'fr' })).toBe('ar');
    expect(chooseLanguage({ query: 'xx', cookie: 'nope', acceptLanguage: 'en-US' })).toBe('en');
    expect(chooseLanguage({})).toBe('fr');
  });

  it('Arabic is right to left', () => {
    expect([directionOf('ar'), directionOf('fr'), directionOf('en')]).toEqual(['rtl', 'ltr', 'ltr']);
  });
});
