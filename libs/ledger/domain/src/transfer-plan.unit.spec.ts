import { type CreateTopup, type ExecuteTransfer } from '@pay/contracts';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule, planTopup, planTransfer, type TransferPlan } from './index';

const transfer: ExecuteTransfer = {
  operationId: 'op_1',
  reference: 'pay_1',
  useCase: 'payment',
  feeMode: 'deducted',
  debitOwner: 'cus_1',
  creditOwner: 'conn_1',
  amount: 1_250_000,
  currency: 'DZD',
};

/** given a fee schedule, when a transfer is planned, then these postings (or this error code). */
const given = (schedule: FeeSchedule) => ({
  when: (changes: Partial<ExecuteTransfer>) => {
    const run = () => planTransfer({ ...transfer, ...changes }, schedule);
    return {
      then: (expected: TransferPlan) => expect(run()).toEqual(expected),
      thenFails: (code: string) => expect(run).toThrow(expect.objectContaining({ code })),
    };
  },
});

describe('planTransfer', () => {
  it('fee deducted: the payer is debited the amount, the payee credited amount - fee, the platform the fee', () =>
    given(DEFAULT_FEE_SCHEDULE).when({}).then({
      postings: [
        { account: 'cus_1', direction: 'debit', amount: 1_250_000, currency: 'DZD' },
        { account: 'conn_1', direction: 'credit', amount: 1_231_250, currency: 'DZD' },
        { account: 'platform:fees:DZD', direction: 'credit', amount: 18_750, currency: 'DZD' },
      ],
      feeAmount: 18_750,
      netAmount: 1_231_250,
      debitedAmount: 1_250_000,
    }));

  it('fee added: the payer is debited amount + fee, the payee credited the amount', () =>
    given(DEFAULT_FEE_SCHEDULE).when({ useCase: 'supplier_payment', feeMode: 'added', debitOwner: 'conn_b', creditOwner: 'ben_1', amount: 100_000 }).then({
      postings: [
        { account: 'conn_b', direction: 'debit', amount: 101_000, currency: 'DZD' },
        { account: 'ben_1', direction: 'credit', amount: 100_000, currency: 'DZD' },
        { account: 'platform:fees:DZD', direction: 'credit', amount: 1_000, currency: 'DZD' },
      ],
      feeAmount: 1_000,
      netAmount: 99_000,
      debitedAmount: 101_000,
    }));

  it('a zero fee posts nothing to the fee account', () =>
    given(DEFAULT_FEE_SCHEDULE).when({ amount: 30, currency: 'XOF' }).then({
      postings: [
        { account: 'cus_1', direction: 'debit', amount: 30, currency: 'XOF' },
        { account: 'conn_1', direction: 'credit', amount: 30, currency: 'XOF' },
      ],
      feeAmount: 0,
      netAmount: 30,
      debitedAmount: 30,
    }));

  it('uses the rule of the use case and currency, fixed part included', () => {
    const schedule: FeeSchedule = { ...DEFAULT_FEE_SCHEDULE, payment: { ...DEFAULT_FEE_SCHEDULE.payment, TND: { basisPoints: 120, fixedMinor: 500 } } };
    given(schedule).when({ amount: 10_000, currency: 'TND' }).then({
      postings: [
        { account: 'cus_1', direction: 'debit', amount: 10_000, currency: 'TND' },
        { account: 'conn_1', direction: 'credit', amount: 9_380, currency: 'TND' },
        { account: 'platform:fees:TND', direction: 'credit', amount: 620, currency: 'TND' },
      ],
      feeAmount: 620,
      netAmount: 9_380,
      debitedAmount: 10_000,
    });
  });

  it('fee none: the payee is credited the whole amount and nothing goes to the fee account, whatever the schedule', () => {
    const costly: FeeSchedule = { ...DEFAULT_FEE_SCHEDULE, settlement: { ...DEFAULT_FEE_SCHEDULE.settlement, DZD: { basisPoints: 10_000, fixedMinor: 500 } } };
    given(costly).when({ useCase: 'settlement', feeMode: 'none' }).then({
      postings: [
        { account: 'cus_1', direction: 'debit', amount: 1_250_000, currency: 'DZD' },
        { account: 'conn_1', direction: 'credit', amount: 1_250_000, currency: 'DZD' },
      ],
      feeAmount: 0,
      netAmount: 1_250_000,
      debitedAmount: 1_250_000,
    });
  });

  it.each(['cash_handover', 'cash_deposit', 'cash_write_off'] as const)('a cash movement (%s) moves the cash whole, entry kind = the movement', (useCase) =>
    given(DEFAULT_FEE_SCHEDULE)
      .when({ useCase, feeMode: 'none', debitOwner: 'platform:cash:DZD', creditOwner: 'platform:cash_in_transit:DZD', amount: 7 })
      .then({
        postings: [
          { account: 'platform:cash:DZD', direction: 'debit', amount: 7, currency: 'DZD' },
          { account: 'platform:cash_in_transit:DZD', direction: 'credit', amount: 7, currency: 'DZD' },
        ],
        feeAmount: 0,
        netAmount: 7,
        debitedAmount: 7,
      }));

  it('a cash movement with a fee mode other than none is invalid_request (it has no fee rule)', () => {
    given(DEFAULT_FEE_SCHEDULE).when({ useCase: 'cash_deposit', feeMode: 'deducted' }).thenFails('invalid_request');
    given(DEFAULT_FEE_SCHEDULE).when({ useCase: 'cash_handover', feeMode: 'added' }).thenFails('invalid_request');
  });

  it('rejects an amount outside 1..1e11 as invalid_amount', () => {
    given(DEFAULT_FEE_SCHEDULE).when({ amount: 0 }).thenFails('invalid_amount');
    given(DEFAULT_FEE_SCHEDULE).when({ amount: 100_000_000_001 }).thenFails('invalid_amount');
    given(DEFAULT_FEE_SCHEDULE).when({ amount: 1.5 }).thenFails('invalid_amount');
  });

  it('rejects an unknown currency as unsupported_currency', () =>
    given(DEFAULT_FEE_SCHEDULE).when({ currency: 'EUR' as never }).thenFails('unsupported_currency'));

  it('rejects a transfer from an account to itself, and unknown use cases or fee modes, as invalid_request', () => {
    given(DEFAULT_FEE_SCHEDULE).when({ creditOwner: 'cus_1' }).thenFails('invalid_request');
    given(DEFAULT_FEE_SCHEDULE).when({ useCase: 'refund' as never }).thenFails('invalid_request');
    given(DEFAULT_FEE_SCHEDULE).when({ feeMode: 'split' as never }).thenFails('invalid_request');
    given(DEFAULT_FEE_SCHEDULE).when({ operationId: '' }).thenFails('invalid_request');
  });
});

describe('planTopup', () => {
  const topup: CreateTopup = { topupId: 'top_1', owner: 'cus_1', amount: 5_000, currency: 'MAD' };

  it('debits the platform funding account and credits the owner', () =>
    expect(planTopup(topup)).toEqual({
      postings: [
        { account: 'platform:funding:MAD', direction: 'debit', amount: 5_000, currency: 'MAD' },
        { account: 'cus_1', direction: 'credit', amount: 5_000, currency: 'MAD' },
      ],
    }));

  it('refuses to top up a platform account', () =>
    expect(() => planTopup({ ...topup, owner: 'platform:fees:MAD' })).toThrow(expect.objectContaining({ code: 'invalid_request' })));

  it('rejects a bad amount as invalid_amount', () =>
    expect(() => planTopup({ ...topup, amount: -5 })).toThrow(expect.objectContaining({ code: 'invalid_amount' })));
});
