import { deciderSpec } from '@pay/testing';
import { authorizationOperationId, paymentDecider, type PaymentEvent, type PaymentTerms, toPaymentResource } from './index';

const paymentId = 'pay_000000000000000000000001';
const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const terms: Omit<PaymentTerms, 'createdAt' | 'expiresAt'> = {
  paymentId,
  integratorId: 'int_1',
  amount: 1_250_000,
  currency: 'DZD',
  orderReference: 'order-1',
  merchantConnection: 'conn_1',
  returnUrl: 'https://shop.example/return',
  authorizationUrl: 'http://localhost:3000/hosted/payments/pay_1',
};
const created: PaymentEvent = { type: 'PaymentCreated', ...terms, expiresAt: at(30).toISOString(), createdAt: t0.toISOString() };
const started: PaymentEvent = {
  type: 'PaymentAuthorizationStarted',
  paymentId,
  customerId: 'cus_1',
  operationId: authorizationOperationId(paymentId),
  startedAt: at(1).toISOString(),
};
const succeeded: PaymentEvent = { type: 'PaymentSucceeded', paymentId, feeAmount: 18_750, netAmount: 1_231_250, ledgerEntryId: 'je_1', succeededAt: at(1).toISOString() };
const declined: PaymentEvent = { type: 'PaymentDeclined', paymentId, reason: 'customer_declined', declinedAt: at(1).toISOString() };
const canceled: PaymentEvent = { type: 'PaymentCanceled', paymentId, canceledAt: at(1).toISOString() };
const expired: PaymentEvent = { type: 'PaymentExpired', paymentId, expiredAt: at(30).toISOString() };

const spec = deciderSpec(paymentDecider);
const finals: [string, PaymentEvent[]][] = [
  ['succeeded', [created, started, succeeded]],
  ['declined', [created, declined]],
  ['canceled', [created, canceled]],
  ['expired', [created, expired]],
];

describe('payment decider', () => {
  describe('create payment', () => {
    it('request valid: pending, with authorization_url and expires_at set', () =>
      spec.given([]).when({ type: 'CreatePayment', terms, expiresAt: at(30), now: t0 }).then([created]));

    it('the same payment id again decides nothing (a retried create)', () =>
      spec.given([created]).when({ type: 'CreatePayment', terms, expiresAt: at(30), now: at(2) }).then([]));
  });

  describe('customer authorizes', () => {
    it('starts the ledger transfer under the payment operation id', () =>
      spec.given([created]).when({ type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: 'DZD', now: at(1) }).then([started]));

    it('a customer whose account is in another currency: currency_mismatch, payment stays pending', () =>
      spec.given([created]).when({ type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: 'MAD', now: at(1) }).thenFails('currency_mismatch'));

    it('past the authorization deadline: invalid_status', () =>
      spec.given([created]).when({ type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: 'DZD', now: at(30) }).thenFails('invalid_status'));

    it('while another authorization is under way: invalid_status', () =>
      spec.given([created, started]).when({ type: 'StartAuthorization', paymentId, customerId: 'cus_2', customerCurrency: 'DZD', now: at(2) }).thenFails('invalid_status'));

    it.each(finals)('on a %s payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: 'DZD', now: at(2) }).thenFails('invalid_status'));

    it('balance sufficient: succeeded with fee_amount, net_amount and succeeded_at', () =>
      spec
        .given([created, started])
        .when({ type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount: 18_750, netAmount: 1_231_250 }, now: at(1) })
        .then([succeeded]));

    it('balance insufficient: declined with insufficient_balance', () =>
      spec
        .given([created, started])
        .when({ type: 'CompleteAuthorization', paymentId, outcome: { status: 'rejected', reason: 'insufficient_balance' }, now: at(1) })
        .then([{ type: 'PaymentDeclined', paymentId, reason: 'insufficient_balance', declinedAt: at(1).toISOString() }]));

    it('an outcome recorded already (a replay after a crash) decides nothing', () =>
      spec
        .given([created, started, succeeded])
        .when({ type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount: 18_750, netAmount: 1_231_250 }, now: at(5) })
        .then([]));

    // Found by the model-based test: fee -1 and net amount + 1 add up to the amount, and were recorded.
    it('a negative fee (or net) is refused, even when fee + net = amount', () =>
      expect(() =>
        paymentDecider.decide(
          { type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount: -1, netAmount: 1_250_001 }, now: at(1) },
          [created, started].reduce(paymentDecider.evolve, paymentDecider.initialState),
        ),
      ).toThrow(/not the amount/));

    it('fee + net different from the amount is refused', () =>
      expect(() =>
        paymentDecider.decide(
          { type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount: 1, netAmount: 1 }, now: at(1) },
          [created, started].reduce(paymentDecider.evolve, paymentDecider.initialState),
        ),
      ).toThrow(/not the amount/));
  });

  describe('customer declines', () => {
    it('pending: declined with customer_declined', () => spec.given([created]).when({ type: 'DeclinePayment', paymentId, now: at(1) }).then([declined]));
    it.each(finals)('on a %s payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'DeclinePayment', paymentId, now: at(2) }).thenFails('invalid_status'));
  });

  describe('cancel payment', () => {
    it('pending: canceled', () => spec.given([created]).when({ type: 'CancelPayment', paymentId, now: at(1) }).then([canceled]));
    it.each(finals)('on a %s payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'CancelPayment', paymentId, now: at(2) }).thenFails('invalid_status'));
    it('while the customer authorization is under way: invalid_status (money may be moving)', () =>
      spec.given([created, started]).when({ type: 'CancelPayment', paymentId, now: at(2) }).thenFails('invalid_status'));
    // Found by the model-based test: a pending payment not yet swept was canceled at or after its deadline.
    it('at expires_at, or 1 ms past it, before the sweep records it: expired, so invalid_status', () => {
      spec.given([created]).when({ type: 'CancelPayment', paymentId, now: at(30) }).thenFails('invalid_status');
      spec.given([created]).when({ type: 'CancelPayment', paymentId, now: new Date(at(30).getTime() + 1) }).thenFails('invalid_status');
    });
    it('1 ms before expires_at: canceled', () => {
      const now = new Date(at(30).getTime() - 1);
      spec.given([created]).when({ type: 'CancelPayment', paymentId, now }).then([{ type: 'PaymentCanceled', paymentId, canceledAt: now.toISOString() }]);
    });
  });

  describe('deadline', () => {
    it('at expires_at a pending payment expires', () => spec.given([created]).when({ type: 'ExpirePayment', paymentId, now: at(30) }).then([expired]));
    it('before expires_at nothing happens', () => spec.given([created]).when({ type: 'ExpirePayment', paymentId, now: at(29) }).then([]));
    it('an authorization under way is completed, not expired', () =>
      spec.given([created, started]).when({ type: 'ExpirePayment', paymentId, now: at(31) }).then([]));
    it.each(finals)('a %s payment does not expire', (_status, history) =>
      spec.given(history).when({ type: 'ExpirePayment', paymentId, now: at(60) }).then([]));
  });

  describe('resource', () => {
    const fold = (events: PaymentEvent[]) => events.reduce(paymentDecider.evolve, paymentDecider.initialState);
    it('pending shows authorization_url and no fee', () => {
      const state = fold([created]);
      if (state.status === 'none') throw new Error('no payment');
      expect(toPaymentResource(state)).toMatchObject({ status: 'pending', authorization_url: terms.authorizationUrl, fee_amount: null, net_amount: null });
    });
    it('succeeded: authorization_url null, fee and net set, fee + net = amount', () => {
      const state = fold([created, started, succeeded]);
      if (state.status === 'none') throw new Error('no payment');
      const resource = toPaymentResource(state);
      expect(resource).toMatchObject({ status: 'succeeded', authorization_url: null, succeeded_at: at(1).toISOString() });
      expect(resource.fee_amount! + resource.net_amount!).toBe(resource.amount);
    });
  });
});
