import { REQUEST_MESSAGE_KEY, REQUEST_TOPICS, type RequestTopic, type RequestTopics } from '@pay/contracts';
import { messageKey } from './kafka-bus';

/**
 * docs/architecture.md, "Two topologies": messages are keyed by the entity id, so that one object's requests stay in
 * order on one partition. Each topic declares the field that keys it (libs/contracts, topics.ts).
 */

const request = <T extends RequestTopic>(topic: T, message: RequestTopics[T]['request'], key: string) => [topic, message, key] as const;

/** Every field that names some object in some request, each holding another object's id than the one the topic is about. */
const OTHER_IDS = Object.fromEntries(
  [
    'paymentId',
    'cashPaymentId',
    'supplierPaymentId',
    'collectionId',
    'refundId',
    'beneficiaryId',
    'cashPointId',
    'operationId',
    'topupId',
    'endpointId',
    'subscriptionId',
    'owner',
    'account',
    'reference',
    'objectId',
    'id',
    'integratorId',
  ].map((field) => [field, `other-${field}`]),
);

const keyField = (topic: RequestTopic): string | null => REQUEST_MESSAGE_KEY[topic];
const keyedTopics = REQUEST_TOPICS.filter((topic) => keyField(topic) !== null);
const unkeyedTopics = REQUEST_TOPICS.filter((topic) => keyField(topic) === null);
const topicsKeyedBy = (field: string) => REQUEST_TOPICS.filter((topic) => keyField(topic) === field).sort();

describe('Kafka message keys', () => {
  it.each([
    request('payments.authorize', { integratorId: null, paymentId: 'pay_1', customer: { id: 'cus_1', currency: 'DZD' } }, 'pay_1'),
    request('payments.refunds.create', { refundId: 're_1', integratorId: 'int_1', paymentId: 'pay_1', amount: null, reason: null }, 'pay_1'),
    request('cash.cash-payments.pay', { integratorId: null, cashPaymentId: 'cpay_1', cashPointId: 'cp_1', amount: 1000 }, 'cpay_1'),
    request('cash.cash-payments.instructions-page', { cashPaymentId: 'cpay_1', page: { language: 'fr', brandName: 'Pay', merchantName: 'Shop' } }, 'cpay_1'),
    request('cash.cash-points.create', { cashPointId: 'cp_1', name: 'Agence', address: 'Alger' }, 'cp_1'),
    request(
      'supplier-payments.create',
      {
        supplierPaymentId: 'spay_1',
        integratorId: 'int_1',
        payerConnection: 'conn_1',
        payerCurrency: 'DZD',
        beneficiary: 'ben_1',
        amount: 1000,
        currency: 'DZD',
        invoiceReference: 'INV-1',
        description: null,
      },
      'spay_1',
    ),
    request('supplier-payments.approve', { integratorId: null, supplierPaymentId: 'spay_1' }, 'spay_1'),
    request('supplier-payments.beneficiaries.retrieve', { beneficiaryId: 'ben_1', business: 'conn_1' }, 'ben_1'),
    request('collections.validate-deposit', { integratorId: null, collectionId: 'col_1', amountReceived: 0 }, 'col_1'),
    request('collections.resolve-deposit', { collectionId: 'col_1', resolution: 'correct', amountReceived: 10 }, 'col_1'),
    request(
      'ledger.transfer',
      {
        operationId: 'payment-authorization:pay_1',
        reference: 'pay_1',
        useCase: 'payment',
        feeMode: 'deducted',
        debitOwner: 'cus_1',
        creditOwner: 'conn_1',
        amount: 1000,
        currency: 'DZD',
      },
      'payment-authorization:pay_1',
    ),
    request('ledger.statement', { account: 'conn_1', from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', limit: 10 }, 'conn_1'),
    request(
      'events.record',
      { id: 'evt_1', type: 'payment.succeeded', createdAt: '2026-01-01T00:00:00Z', integratorId: 'int_1', objectId: 'pay_1', data: { object_version: 2 } },
      'pay_1',
    ),
    request('webhooks.endpoints.update', { integratorId: 'int_1', id: 'we_1', status: 'disabled' }, 'we_1'),
  ])('keys a %s request by the id of the object it is about', (topic, message, key) => {
    expect(messageKey(topic, message)).toBe(key);
    expect(messageKey(topic, { ...message })).toBe(key);
  });

  it.each(keyedTopics.map((topic) => [topic, keyField(topic)]))('keys every %s message by its %s, whatever other ids it carries', (topic, field) => {
    expect(messageKey(topic, { ...OTHER_IDS, [field!]: 'the-object' })).toBe('the-object');
  });

  it('keys every request that names a payment, cash payment, supplier payment or collection by that id', () => {
    expect(topicsKeyedBy('paymentId')).toEqual(
      ['payments.authorize', 'payments.cancel', 'payments.create', 'payments.decline', 'payments.refunds.create', 'payments.retrieve'].sort(),
    );
    expect(topicsKeyedBy('cashPaymentId')).toEqual(
      [
        'cash.cash-payments.cancel',
        'cash.cash-payments.create',
        'cash.cash-payments.instructions-page',
        'cash.cash-payments.pay',
        'cash.cash-payments.qr-code',
        'cash.cash-payments.retrieve',
      ].sort(),
    );
    expect(topicsKeyedBy('supplierPaymentId')).toEqual(
      ['supplier-payments.approve', 'supplier-payments.cancel', 'supplier-payments.create', 'supplier-payments.reject', 'supplier-payments.retrieve'].sort(),
    );
    expect(topicsKeyedBy('collectionId')).toEqual(
      ['collections.confirm-handover', 'collections.create', 'collections.resolve-deposit', 'collections.retrieve', 'collections.validate-deposit'].sort(),
    );
  });

  it.each(unkeyedTopics)('gives a %s message, about no entity, a random key', (topic) => {
    expect(messageKey(topic, { ...OTHER_IDS })).not.toBe(messageKey(topic, { ...OTHER_IDS }));
  });

  it('gives a random key when the key field is absent from the message (every endpoint, every subscription)', () => {
    expect(messageKey('webhooks.operations.redeliver-failed', {})).not.toBe(messageKey('webhooks.operations.redeliver-failed', {}));
    expect(messageKey('payments.operations.replay-parked', {})).not.toBe(messageKey('payments.operations.replay-parked', {}));
  });
});
