import { parseInstances, withPublicBaseUrl } from './distributed';

describe('--instances', () => {
  it('N: every app runs N instances', () => {
    expect(Object.values(parseInstances('2'))).toEqual([2, 2, 2, 2, 2, 2, 2]);
  });

  it('app=N[,app=N]: those apps, the others one', () => {
    expect(parseInstances('payments=2, ledger=3')).toMatchObject({ payments: 2, ledger: 3, gateway: 1, webhooks: 1 });
  });

  it('refuses more instances than reply partitions, zero, and unknown apps, naming the bound', () => {
    expect(() => parseInstances('5')).toThrow(/1 to 4 \(one reply partition per instance/);
    expect(() => parseInstances('payments=0')).toThrow(/payments: instances must be an integer from 1 to 4/);
    expect(() => parseInstances('billing=2')).toThrow(/apps among ledger, webhooks/);
  });
});

describe('the hosted pages’ origin of every app', () => {
  it('is the first gateway’s port when PUBLIC_BASE_URL is unset, as npm start makes it from its PORT', () => {
    expect(withPublicBaseUrl({ PORT: '3000' })['PUBLIC_BASE_URL']).toBe('http://localhost:3000');
  });

  it('is left alone when given, or when the gateway’s port is yet to be picked', () => {
    expect(withPublicBaseUrl({ PORT: '3000', PUBLIC_BASE_URL: 'https://pay.example' })['PUBLIC_BASE_URL']).toBe('https://pay.example');
    expect(withPublicBaseUrl({})['PUBLIC_BASE_URL']).toBeUndefined();
    expect(withPublicBaseUrl({ PORT: '0' })['PUBLIC_BASE_URL']).toBeUndefined();
  });
});
