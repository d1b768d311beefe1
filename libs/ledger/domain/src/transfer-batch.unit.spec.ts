import { type ExecuteTransfer } from '@pay/contracts';
import { type AccountState, DEFAULT_FEE_SCHEDULE, decideInOrder, planTransfer } from './index';

const account = (id: string, balance: number, changes: Partial<AccountState> = {}): [string, AccountState] => [
  id,
  { id, currency: 'DZD', balance, allowNegative: id.startsWith('platform:funding:') || id.startsWith('platform:cash:'), ...changes },
];
const locked = new Map([account('cus_a', 10_000), account('cus_b', 500), account('conn_m', 0), account('platform:fees:DZD', 0), account('platform:cash:DZD', 0)]);

const transfer = (debitOwner: string, creditOwner: string, amount: number, changes: Partial<ExecuteTransfer> = {}) => {
  const request: ExecuteTransfer = { operationId: 'op', reference: 'pay_1', useCase: 'payment', feeMode: 'deducted', debitOwner, creditOwner, amount, currency: 'DZD', ...changes };
  return { debitOwner, currency: request.currency, plan: planTransfer(request, DEFAULT_FEE_SCHEDULE) };
};

describe('decideInOrder: a batch decided as if each transfer ran alone, in order', () => {
  it('each transfer sees the balances its predecessors left: the one that would overdraw is rejected alone, the others apply', () => {
    const { decisions, balances } = decideInOrder([transfer('cus_a', 'conn_m', 6_000), transfer('cus_a', 'conn_m', 6_000), transfer('cus_a', 'conn_m', 4_000)], locked);
    expect(decisions.map((d) => d.decision)).toEqual(['applied', 'rejected', 'applied']);
    expect(balances.get('cus_a')).toBe(0);
    expect(balances.get('conn_m')).toBe(5_910 + 3_940);
    expect(balances.get('platform:fees:DZD')).toBe(90 + 60);
  });

  it('balance_after of each posting follows the order of the batch, from the locked balances', () => {
    const { decisions } = decideInOrder([transfer('cus_a', 'conn_m', 1_000), transfer('cus_b', 'conn_m', 500), transfer('cus_a', 'conn_m', 2_000)], locked);
    expect(decisions).toEqual([
      { decision: 'applied', balancesAfter: [9_000, 985, 15] },
      { decision: 'applied', balancesAfter: [0, 985 + 492, 15 + 8] },
      { decision: 'applied', balancesAfter: [7_000, 985 + 492 + 1_970, 15 + 8 + 30] },
    ]);
  });

  it('an account that may go below zero is never rejected; the ones that may not never go below zero', () => {
    const { decisions, balances } = decideInOrder([transfer('platform:cash:DZD', 'conn_m', 1_000_000, { useCase: 'cash_payment' })], locked);
    expect(decisions[0]?.decision).toBe('applied');
    expect(balances.get('platform:cash:DZD')).toBe(-1_000_000);
  });

  it('a missing account or one in another currency refuses that transfer alone, with its error, and moves nothing', () => {
    const withMad = new Map([...locked, account('conn_mad', 0, { currency: 'MAD' })]);
    const { decisions, balances } = decideInOrder([transfer('cus_a', 'conn_unknown', 1_000), transfer('cus_a', 'conn_mad', 1_000), transfer('cus_a', 'conn_m', 10_000)], withMad);
    expect(decisions[0]).toEqual({ decision: 'refused', error: expect.objectContaining({ code: 'invalid_request' }) });
    expect(decisions[1]).toEqual({ decision: 'refused', error: expect.objectContaining({ code: 'currency_mismatch' }) });
    expect(decisions[2]?.decision).toBe('applied');
    expect(balances.get('cus_a')).toBe(0);
  });

  it('an account whose allow_negative flag contradicts the rules refuses the transfer', () => {
    const wrong = new Map([...locked, account('cus_neg', 0, { allowNegative: true })]);
    const { decisions } = decideInOrder([transfer('cus_neg', 'conn_m', 1_000)], wrong);
    expect(decisions[0]).toEqual({ decision: 'refused', error: expect.objectContaining({ message: expect.stringMatching(/allow_negative/) }) });
  });
});
