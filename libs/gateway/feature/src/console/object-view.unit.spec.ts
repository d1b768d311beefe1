import { factsOf } from './object-view';

describe('object page facts', () => {
  it('an amount is money in the object’s currency, top-level or nested (a collection’s deposit)', () => {
    const facts = factsOf(
      { object: 'collection', id: 'col_1', amount: 70000, fee_amount: 500, deposit: { amount_expected: 70000, amount_received: 69000, due_at: '2026-12-01T00:00:00.000Z', attempts: 2 } },
      'DZD',
      {},
    );
    const kinds = Object.fromEntries(facts.map((f) => [f.name, f.kind]));
    expect(kinds).toEqual({
      id: 'text',
      amount: 'money',
      fee_amount: 'money',
      'deposit.amount_expected': 'money',
      'deposit.amount_received': 'money',
      'deposit.due_at': 'time',
      'deposit.attempts': 'text',
    });
    expect(facts.find((f) => f.name === 'deposit.amount_expected')!.amount).toBe(70000);
  });
});
