import { reconcile } from './reconciliation';

describe('reconcile', () => {
  const expected = [{ objectId: 'pay_1', byReference: { pay_1: { cus_1: -100, conn_1: 100 } } }];
  const ledger = { pay_1: { cus_1: -100, conn_1: 100 } };

  it('is balanced when the ledger moved what the histories say and the chain holds', () => {
    const chain = { object: 'chain_verification' as const, status: 'valid' as const, entries: 3, first_broken_sequence: null };
    expect(reconcile(expected, ledger, chain)).toEqual({ object: 'reconciliation', status: 'balanced', checked_objects: 1, differences: [] });
  });

  it('reports a broken chain first, with its sequence, even when every amount agrees', () => {
    const chain = { object: 'chain_verification' as const, status: 'broken' as const, entries: 1, first_broken_sequence: 2 };
    const report = reconcile(expected, ledger, chain);
    expect(report.status).toBe('differences');
    expect(report.differences).toEqual([{ kind: 'broken_chain', sequence: 2, message: expect.stringContaining('sequence 2') }]);
  });
});
