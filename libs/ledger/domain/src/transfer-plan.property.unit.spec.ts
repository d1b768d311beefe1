import fc from 'fast-check';
import { CURRENCIES, type FeeRule } from '@pay/kernel';
import { type ExecuteTransfer } from '@pay/contracts';
import { DEFAULT_FEE_SCHEDULE, type FeeSchedule, planTransfer } from './index';

const scheduleWith = (rule: FeeRule): FeeSchedule => ({
  ...DEFAULT_FEE_SCHEDULE,
  payment: Object.fromEntries(CURRENCIES.map((currency) => [currency, rule])) as FeeSchedule['payment'],
});

const amounts = fc.integer({ min: 1, max: 100_000_000_000 });
const rules = fc.record({ basisPoints: fc.integer({ min: 0, max: 10_000 }), fixedMinor: fc.integer({ min: 0, max: 100_000_000_000 }) });
const feeModes = fc.constantFrom<ExecuteTransfer['feeMode']>('deducted', 'added');
const currencies = fc.constantFrom(...CURRENCIES);

const sum = (amountsToAdd: number[]) => amountsToAdd.reduce((total, amount) => total + amount, 0);

describe('planTransfer, for any amount 1..1e11 and any fee rule', () => {
  it('postings balance, no posting is zero or negative, and the amounts add up', () =>
    fc.assert(
      fc.property(amounts, rules, feeModes, currencies, (amount, rule, feeMode, currency) => {
        const request: ExecuteTransfer = {
          operationId: 'op_1',
          reference: 'pay_1',
          useCase: 'payment',
          feeMode,
          debitOwner: 'cus_1',
          creditOwner: 'conn_1',
          amount,
          currency,
        };
        const plan = planTransfer(request, scheduleWith(rule));
        const debits = plan.postings.filter((p) => p.direction === 'debit').map((p) => p.amount);
        const credits = plan.postings.filter((p) => p.direction === 'credit').map((p) => p.amount);
        expect(sum(debits)).toBe(sum(credits));
        expect(plan.postings.every((p) => Number.isSafeInteger(p.amount) && p.amount > 0 && p.currency === currency)).toBe(true);
        expect(plan.feeAmount + plan.netAmount).toBe(amount);
        expect(plan.feeAmount).toBeGreaterThanOrEqual(0);
        expect(plan.debitedAmount).toBe(feeMode === 'deducted' ? amount : amount + plan.feeAmount);
        expect(sum(debits)).toBe(plan.debitedAmount);
      }),
      { numRuns: 500 },
    ));

  it('feeMode none: exactly two postings, debit = credit = amount, no fee, for any use case and any schedule', () =>
    fc.assert(
      fc.property(amounts, rules, currencies, fc.constantFrom<ExecuteTransfer['useCase']>('payment', 'settlement', 'cash_handover', 'cash_deposit', 'cash_write_off'), (amount, rule, currency, useCase) => {
        const plan = planTransfer(
          { operationId: 'op_1', reference: 'col_1', useCase, feeMode: 'none', debitOwner: 'cus_1', creditOwner: 'conn_1', amount, currency },
          scheduleWith(rule),
        );
        expect(plan.postings).toEqual([
          { account: 'cus_1', direction: 'debit', amount, currency },
          { account: 'conn_1', direction: 'credit', amount, currency },
        ]);
        expect(plan).toMatchObject({ feeAmount: 0, netAmount: amount, debitedAmount: amount });
      }),
      { numRuns: 300 },
    ));
});
