import { isConsolePage } from './console-role';
import { kindOfId } from './console-paths';

describe('console paths', () => {
  it('an id opens its page when the console has one for its kind', () => {
    expect(kindOfId('pay_4Ld9x0aQ2')).toBe('payment');
    expect(kindOfId('cpay_4Ld9x0aQ2')).toBe('cashPayment');
    expect(kindOfId('txn_1')).toBe('balanceTransaction');
    expect(kindOfId('we_1')).toBeUndefined();
    expect(kindOfId('1001')).toBeUndefined();
    expect(kindOfId('pay_')).toBeUndefined();
    expect(kindOfId('pay_a b')).toBeUndefined();
    expect(kindOfId(`pay_${'a'.repeat(200)}`)).toBeUndefined();
  });

  it('after sign-in, only a console page of this origin is a place to go back to', () => {
    expect(isConsolePage('/console/search?q=1001')).toBe(true);
    expect(isConsolePage('/console/objects/pay_1')).toBe(true);
    for (const url of ['//evil.example/console', 'https://evil.example/console', '/console//evil.example', '/console/\\evil', '/hosted/agent', '/console/sign-in', '/consolex', 'javascript:alert(1)']) {
      expect({ url, ok: isConsolePage(url) }).toEqual({ url, ok: false });
    }
  });

  it('a place to go back to is a plain path and query: no control character, space or non-ASCII (it goes into Location as it is)', () => {
    expect(isConsolePage('/console/search?q=a%20b&x=%C3%A9')).toBe(true);
    for (const url of ['/console?a\r\nSet-Cookie: evil=1', '/console?a\nb', '/console?a\rb', '/console?a\tb', '/console?a\u0000b', '/console?a\u007fb', '/console?a b', '/console?q=é', '/console/search\n']) {
      expect({ url, ok: isConsolePage(url) }).toEqual({ url, ok: false });
    }
  });
});
