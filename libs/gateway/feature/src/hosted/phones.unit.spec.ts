import { phoneExample, typedPhone } from './phones';

describe('a phone as customers type it', () => {
  const forms = [
    '+213555123456',
    '0555 12 34 56',
    '+213 555 12 34 56',
    '00213 555 12 34 56',
    '(0555) 12-34-56',
    '0555.12.34.56',
    '٠٥٥٥١٢٣٤٥٦',
    '+٢١٣ ٥٥٥ ١٢ ٣٤ ٥٦',
    '۰۵۵۵۱۲۳۴۵۶',
    '+213 (0) 555 12 34 56',
  ];
  it.each(forms)('%s is one number, counted as +213555123456 and looked up in the forms the back office registers', (typed) => {
    const phone = typedPhone(typed, 'DZD');
    expect(phone.login).toBe('+213555123456');
    expect(phone.candidates).toEqual(expect.arrayContaining(['+213555123456', '213555123456', '0555123456']));
  });

  it('reads a national number in the country of the payment’s currency', () => {
    expect(typedPhone('06 50 12 34 56', 'MAD').login).toBe('+212650123456');
    expect(typedPhone('20 123 456', 'TND').login).toBe('+21620123456');
    expect(typedPhone('70 123 45 67', 'XOF').login).toBe('+221701234567');
  });

  it('keeps a text that is no number as typed, and looks up nothing that cannot be registered', () => {
    expect(typedPhone('  ', 'DZD')).toEqual({ login: '', candidates: [] });
    expect(typedPhone("' OR 1=1 --", 'DZD').candidates).toEqual([]);
    expect(typedPhone('9'.repeat(41), 'DZD').candidates).toEqual([]);
  });

  it('gives an example of the country’s mobile numbers for the field’s hint', () => {
    expect(phoneExample('DZD')).toEqual({ national: '0551 23 45 67', international: '+213 551 23 45 67' });
  });
});
