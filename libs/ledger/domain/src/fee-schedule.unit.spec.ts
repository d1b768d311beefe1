import { CURRENCIES } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE, FEE_USE_CASES, parseFeeSchedule } from './index';

describe('fee schedule', () => {
  it('the default charges payment 150, cash_payment 200, supplier_payment 100, settlement 250 bps, no fixed part, in all four currencies', () => {
    const expected = { payment: 150, cash_payment: 200, supplier_payment: 100, settlement: 250 };
    for (const useCase of FEE_USE_CASES) {
      for (const currency of CURRENCIES) expect(DEFAULT_FEE_SCHEDULE[useCase][currency]).toEqual({ basisPoints: expected[useCase], fixedMinor: 0 });
    }
  });

  it('given an override of one rule, when parsed, then only that rule changes', () => {
    const parsed = parseFeeSchedule({ payment: { DZD: { basisPoints: 120, fixedMinor: 500 } } });
    expect(parsed).toEqual({ ...DEFAULT_FEE_SCHEDULE, payment: { ...DEFAULT_FEE_SCHEDULE.payment, DZD: { basisPoints: 120, fixedMinor: 500 } } });
  });

  it('an empty override is the default', () => expect(parseFeeSchedule({})).toEqual(DEFAULT_FEE_SCHEDULE));

  it('unknown use cases, currencies and fields are problems', () => {
    expect(parseFeeSchedule({ refund: {} })).toMatch(/unknown use case "refund"/);
    expect(parseFeeSchedule({ payment: { EUR: { basisPoints: 1, fixedMinor: 0 } } })).toMatch(/unknown currency "EUR"/);
    expect(parseFeeSchedule({ payment: { DZD: { basisPoints: 1, fixedMinor: 0, cap: 5 } } })).toMatch(/unknown field "cap"/);
  });

  it('bad numbers are problems, every one reported', () => {
    const problem = parseFeeSchedule({ payment: { DZD: { basisPoints: 10_001, fixedMinor: 0 }, MAD: { basisPoints: 1, fixedMinor: -1 } }, settlement: { XOF: { basisPoints: '5', fixedMinor: 0 } } });
    expect(typeof problem).toBe('string');
    expect(problem).toMatch(/payment\.DZD: basisPoints/);
    expect(problem).toMatch(/payment\.MAD: fixedMinor/);
    expect(problem).toMatch(/settlement\.XOF: basisPoints/);
    expect(parseFeeSchedule({ payment: { DZD: { basisPoints: 1.5, fixedMinor: 0 } } })).toMatch(/basisPoints/);
    expect(parseFeeSchedule({ payment: { DZD: { basisPoints: 1 } } })).toMatch(/fixedMinor/);
  });

  it('anything but an object is a problem', () => {
    for (const value of [null, [], 'x', 5]) expect(typeof parseFeeSchedule(value)).toBe('string');
  });
});
