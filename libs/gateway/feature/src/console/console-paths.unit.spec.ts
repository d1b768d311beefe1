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
});
