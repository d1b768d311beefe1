import { allowsNegativeBalance, checkOpenAccount, platformAccount } from './index';

describe('accounts', () => {
  it('only funding, cash and cash in transit may go below zero; a cash point, a customer, a business and fees never', () => {
    for (const currency of ['DZD', 'XOF'] as const) {
      expect(allowsNegativeBalance(platformAccount('funding', currency))).toBe(true);
      expect(allowsNegativeBalance(platformAccount('cash', currency))).toBe(true);
      expect(allowsNegativeBalance(platformAccount('cash_in_transit', currency))).toBe(true);
      expect(allowsNegativeBalance(platformAccount('fees', currency))).toBe(false);
    }
    for (const id of ['cp_1:DZD', 'cus_1', 'conn_1', 'ben_1']) expect(allowsNegativeBalance(id)).toBe(false);
  });

  it('a cash point account is cp_…:<CUR> in its own currency', () => {
    expect(() => checkOpenAccount({ owner: 'cp_abc:DZD', kind: 'cash_point', currency: 'DZD' })).not.toThrow();
    for (const owner of ['cp_abc', 'cp_abc:XOF', 'cus_abc:DZD', 'platform:cash:DZD']) {
      expect(() => checkOpenAccount({ owner, kind: 'cash_point', currency: 'DZD' })).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'owner' }));
    }
    expect(() => checkOpenAccount({ owner: 'cp_abc:DZD', kind: 'customer', currency: 'DZD' })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
