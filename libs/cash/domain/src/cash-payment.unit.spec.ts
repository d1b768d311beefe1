import { deciderSpec } from '@pay/testing';
import { cashPaymentDecider, cashPaymentOperationId, paymentReferenceFrom, toCashPaymentResource, type CashPaymentEvent, type CashPaymentTerms } from './index';

const cashPaymentId = 'cpay_000000000000000000000001';
const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (hours: number) => new Date(t0.getTime() + hours * 3_600_000);
const terms: Omit<CashPaymentTerms, 'createdAt' | 'expiresAt'> = {
  cashPaymentId,
  integratorId: 'int_1',
  amount: 1_250_000,
  currency: 'DZD',
  orderReference: 'order-1',
  merchantConnection: 'conn_1',
  paymentReference: paymentReferenceFrom('482109375'),
  qrCodeUrl: `http://localhost:3000/hosted/cash_payments/${cashPaymentId}/qr.png`,
  instructionsUrl: `http://localhost:3000/hosted/cash_payments/${cashPaymentId}/instructions`,
};
const created: CashPaymentEvent = { type: 'CashPaymentCreated', ...terms, expiresAt: at(72).toISOString(), createdAt: t0.toISOString() };
const validate = (now: Date, amount = terms.amount) =>
  ({ type: 'ValidateCash', cashPaymentId, cashPointId: 'cp_1', amount, receiptNumber: 'R-000000017', now }) as const;
const started: CashPaymentEvent = {
  type: 'CashPaymentValidationStarted',
  cashPaymentId,
  cashPointId: 'cp_1',
  receiptNumber: 'R-000000017',
  operationId: cashPaymentOperationId(cashPaymentId),
  paidAt: at(1).toISOString(),
};
const outcome = { entryId: 'je_1', feeAmount: 25_000, netAmount: 1_225_000 };
const succeeded: CashPaymentEvent = { type: 'CashPaymentSucceeded', cashPaymentId, ...{ feeAmount: 25_000, netAmount: 1_225_000 }, ledgerEntryId: 'je_1', succeededAt: at(1).toISOString() };
const canceled: CashPaymentEvent = { type: 'CashPaymentCanceled', cashPaymentId, canceledAt: at(1).toISOString() };
const expired: CashPaymentEvent = { type: 'CashPaymentExpired', cashPaymentId, expiredAt: at(72).toISOString() };

const spec = deciderSpec(cashPaymentDecider);
const finals: [string, CashPaymentEvent[]][] = [
  ['succeeded', [created, started, succeeded]],
  ['canceled', [created, canceled]],
  ['expired', [created, expired]],
];
const fold = (events: CashPaymentEvent[]) => {
  const state = events.reduce(cashPaymentDecider.evolve, cashPaymentDecider.initialState);
  if (state.status === 'none') throw new Error('no cash payment');
  return state;
};

describe('cash payment decider', () => {
  describe('(none) → create cash payment, request valid → awaiting_payment', () => {
    it('payment_reference, QR code URL, instructions URL and expires_at set', () =>
      spec.given([]).when({ type: 'CreateCashPayment', terms, expiresAt: at(72), now: t0 }).then([created]));

    it('the same cash payment id again decides nothing (a retried create)', () =>
      spec.given([created]).when({ type: 'CreateCashPayment', terms, expiresAt: at(72), now: at(1) }).then([]));

    it('a deadline not in the future: invalid_request (param expires_at)', () =>
      spec.given([]).when({ type: 'CreateCashPayment', terms, expiresAt: t0, now: t0 }).thenFails('invalid_request'));

    it('a reference without a valid check digit is refused', () =>
      expect(() => cashPaymentDecider.decide({ type: 'CreateCashPayment', terms: { ...terms, paymentReference: '4821093750' }, expiresAt: at(72), now: t0 }, cashPaymentDecider.initialState)).toThrow(
        /not a payment reference/,
      ));
  });

  describe('awaiting_payment → cash agent validates the cash', () => {
    it('amount exactly as requested: the validation starts, under the cash payment operation id, paid_at set', () =>
      spec.given([created]).when(validate(at(1))).then([started]));

    it.each([1_249_999, 1_250_001, 1])('an amount other than the exact one (%i): invalid_amount, nothing changes', (amount) =>
      spec.given([created]).when(validate(at(1), amount)).thenFails('invalid_amount'));

    it('ledger transfer completed: succeeded with fee_amount and net_amount (merchant credited)', () =>
      spec.given([created, started]).when({ type: 'CompleteCashValidation', cashPaymentId, outcome, now: at(1) }).then([succeeded]));

    it('an outcome recorded already (a replay after a crash) decides nothing', () =>
      spec.given([created, started, succeeded]).when({ type: 'CompleteCashValidation', cashPaymentId, outcome, now: at(2) }).then([]));

    it('fee + net different from the amount is refused', () =>
      expect(() =>
        cashPaymentDecider.decide({ type: 'CompleteCashValidation', cashPaymentId, outcome: { entryId: 'je_1', feeAmount: 1, netAmount: 1 }, now: at(1) }, fold([created, started])),
      ).toThrow(/not the amount/));

    // Found by the model-based test: fee -1 and net amount + 1 add up to the amount, and were recorded.
    it('a negative fee (or net) is refused, even when fee + net = amount', () =>
      expect(() =>
        cashPaymentDecider.decide({ type: 'CompleteCashValidation', cashPaymentId, outcome: { entryId: 'je_1', feeAmount: -1, netAmount: 1_250_001 }, now: at(1) }, fold([created, started])),
      ).toThrow(/not the amount/));

    it('at or past expires_at (not yet swept): invalid_status, the reference can no longer be paid', () =>
      spec.given([created]).when(validate(at(72))).thenFails('invalid_status'));

    it('a second validation while the first is completing: invalid_status (paid once)', () =>
      spec.given([created, started]).when(validate(at(2))).thenFails('invalid_status'));

    it.each(finals)('on a %s cash payment: invalid_status', (_status, history) => spec.given(history).when(validate(at(2))).thenFails('invalid_status'));

    it.each(finals)('on a %s cash payment, even with another amount: invalid_status first', (_status, history) =>
      spec.given(history).when(validate(at(2), 5)).thenFails('invalid_status'));
  });

  describe('awaiting_payment → deadline expires_at passes, no validated payment → expired', () => {
    it('at expires_at: expired', () => spec.given([created]).when({ type: 'ExpireCashPayment', cashPaymentId, now: at(72) }).then([expired]));
    it('before expires_at nothing happens', () =>
      spec.given([created]).when({ type: 'ExpireCashPayment', cashPaymentId, now: new Date(at(72).getTime() - 1) }).then([]));
    it('cash validated before the deadline: completed, not expired', () =>
      spec.given([created, started]).when({ type: 'ExpireCashPayment', cashPaymentId, now: at(73) }).then([]));
    it.each(finals)('a %s cash payment does not expire', (_status, history) =>
      spec.given(history).when({ type: 'ExpireCashPayment', cashPaymentId, now: at(100) }).then([]));
  });

  describe('awaiting_payment → cancel cash payment → canceled', () => {
    it('awaiting_payment: canceled', () => spec.given([created]).when({ type: 'CancelCashPayment', cashPaymentId, now: at(1) }).then([canceled]));
    it('once the cash is validated (money moving): invalid_status — cancel and validation never both win', () =>
      spec.given([created, started]).when({ type: 'CancelCashPayment', cashPaymentId, now: at(1) }).thenFails('invalid_status'));
    it('a canceled reference can no longer be paid: validation after cancel is invalid_status', () =>
      spec.given([created, canceled]).when(validate(at(1))).thenFails('invalid_status'));
    it('past expires_at (not yet swept): invalid_status, it expires instead', () =>
      spec.given([created]).when({ type: 'CancelCashPayment', cashPaymentId, now: at(72) }).thenFails('invalid_status'));
  });

  describe('final states → cancel cash payment → unchanged, invalid_status', () => {
    it.each(finals)('on a %s cash payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'CancelCashPayment', cashPaymentId, now: at(2) }).thenFails('invalid_status'));
  });

  describe('evolve ignores events that do not apply (a final state never moves)', () => {
    it.each(finals)('a %s cash payment stays as it is', (status, history) => {
      for (const late of [started, succeeded, canceled, expired]) expect(fold([...history, late]).status).toBe(status);
    });
  });

  describe('resource', () => {
    it('awaiting_payment: reference and URLs set; cash_point, receipt_number, fee, net, paid_at null', () => {
      expect(toCashPaymentResource(fold([created]))).toEqual({
        id: cashPaymentId,
        object: 'cash_payment',
        status: 'awaiting_payment',
        amount: 1_250_000,
        currency: 'DZD',
        order_reference: 'order-1',
        merchant_connection: 'conn_1',
        payment_reference: terms.paymentReference,
        qr_code_url: terms.qrCodeUrl,
        instructions_url: terms.instructionsUrl,
        expires_at: at(72).toISOString(),
        cash_point: null,
        receipt_number: null,
        fee_amount: null,
        net_amount: null,
        paid_at: null,
        created_at: t0.toISOString(),
      });
    });
    it('a validation under way is still awaiting_payment to the outside', () =>
      expect(toCashPaymentResource(fold([created, started]))).toMatchObject({ status: 'awaiting_payment', cash_point: null, paid_at: null }));
    it('succeeded: cash_point, receipt_number, fee_amount, net_amount, paid_at set; fee + net = amount', () => {
      const resource = toCashPaymentResource(fold([created, started, succeeded]));
      expect(resource).toMatchObject({ status: 'succeeded', cash_point: 'cp_1', receipt_number: 'R-000000017', paid_at: at(1).toISOString() });
      expect(resource.fee_amount! + resource.net_amount!).toBe(resource.amount);
    });
  });
});
