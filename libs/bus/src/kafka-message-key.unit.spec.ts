import { messageKey } from './kafka-bus';

describe('Kafka message keys', () => {
  it.each([
    ['payments', { integratorId: 'int_1', paymentId: 'pay_1' }, 'pay_1'],
    ['cash payments', { integratorId: 'int_1', cashPaymentId: 'cpay_1' }, 'cpay_1'],
    ['supplier payments', { integratorId: 'int_1', supplierPaymentId: 'spay_1' }, 'spay_1'],
    ['collections', { integratorId: 'int_1', collectionId: 'col_1' }, 'col_1'],
    ['ledger transfers', { operationId: 'payment-authorization:pay_1', reference: 'pay_1' }, 'payment-authorization:pay_1'],
  ])('keys %s requests by their entity id, so that one object stays on one partition', (_what, message, key) => {
    expect(messageKey(message)).toBe(key);
    expect(messageKey({ ...message })).toBe(messageKey(message));
  });

  it('gives a message about no entity a random key', () => {
    expect(messageKey({ clockOffsetMs: 1 })).not.toBe(messageKey({ clockOffsetMs: 1 }));
  });
});
