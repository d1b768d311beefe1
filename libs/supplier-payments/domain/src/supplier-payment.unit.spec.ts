import { deciderSpec } from '@pay/testing';
import {
  approvalOperationId,
  supplierPaymentDecider,
  toSupplierPaymentResource,
  type BeneficiaryFacts,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
  type SupplierPaymentTerms,
} from './index';

const supplierPaymentId = 'spay_000000000000000000000001';
const t0 = new Date('2026-11-22T10:00:00.000Z');
const DAY_MS = 24 * 3600 * 1000;
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const deadline = new Date(t0.getTime() + 7 * DAY_MS);
const afterDeadline = (ms: number) => new Date(deadline.getTime() + ms);
const terms: Omit<SupplierPaymentTerms, 'createdAt' | 'expiresAt'> = {
  supplierPaymentId,
  integratorId: 'int_1',
  payerConnection: 'conn_business',
  beneficiary: 'ben_1',
  amount: 5_000_000,
  currency: 'DZD',
  invoiceReference: 'INV-2026-001',
  description: 'November supplies',
  approvalUrl: 'https://pay.example.test/hosted/supplier_payments/spay_1',
};
const beneficiary: BeneficiaryFacts = { id: 'ben_1', business: 'conn_business', currency: 'DZD', status: 'authorized' };
const createCommand = (overrides: Partial<Extract<SupplierPaymentCommand, { type: 'CreateSupplierPayment' }>> = {}): SupplierPaymentCommand => ({
  type: 'CreateSupplierPayment',
  terms,
  payerCurrency: 'DZD',
  beneficiary,
  expiresAt: deadline,
  now: t0,
  ...overrides,
});

const created: SupplierPaymentEvent = { type: 'SupplierPaymentCreated', ...terms, expiresAt: deadline.toISOString(), createdAt: t0.toISOString() };
const started: SupplierPaymentEvent = {
  type: 'SupplierPaymentApprovalStarted',
  supplierPaymentId,
  operationId: approvalOperationId(supplierPaymentId),
  approvedAt: at(1).toISOString(),
};
const succeeded: SupplierPaymentEvent = { type: 'SupplierPaymentSucceeded', supplierPaymentId, feeAmount: 50_000, ledgerEntryId: 'je_1', succeededAt: at(1).toISOString() };
const declined: SupplierPaymentEvent = { type: 'SupplierPaymentDeclined', supplierPaymentId, reason: 'insufficient_balance', declinedAt: at(1).toISOString() };
const rejected: SupplierPaymentEvent = { type: 'SupplierPaymentRejected', supplierPaymentId, rejectedAt: at(1).toISOString() };
const canceled: SupplierPaymentEvent = { type: 'SupplierPaymentCanceled', supplierPaymentId, canceledAt: at(1).toISOString() };
const expired: SupplierPaymentEvent = { type: 'SupplierPaymentExpired', supplierPaymentId, expiredAt: deadline.toISOString() };
const completed = { status: 'completed', entryId: 'je_1', feeAmount: 50_000, debitedAmount: 5_050_000 } as const;

const spec = deciderSpec(supplierPaymentDecider);
const finals: [string, SupplierPaymentEvent[]][] = [
  ['succeeded', [created, started, succeeded]],
  ['declined', [created, started, declined]],
  ['rejected', [created, rejected]],
  ['canceled', [created, canceled]],
  ['expired', [created, expired]],
];
const fold = (events: SupplierPaymentEvent[]) => events.reduce(supplierPaymentDecider.evolve, supplierPaymentDecider.initialState);

describe('supplier payment decider', () => {
  describe('create supplier payment', () => {
    it('request valid: awaiting_approval, with approval_url and expires_at (approval deadline) set', () =>
      spec.given([]).when(createCommand()).then([created]));

    it('the same supplier payment id again decides nothing (a retried create)', () =>
      spec.given([created]).when(createCommand({ now: at(2) })).then([]));

    it.each<[string, BeneficiaryFacts | null]>([
      ['does not exist', null],
      ['is revoked', { ...beneficiary, status: 'revoked' }],
      ['belongs to another business', { ...beneficiary, business: 'conn_other' }],
    ])('a beneficiary that %s: beneficiary_not_authorized', (_case, facts) =>
      spec.given([]).when(createCommand({ beneficiary: facts })).thenFails('beneficiary_not_authorized'));

    it("a currency other than the payer connection's account: currency_mismatch", () =>
      spec.given([]).when(createCommand({ payerCurrency: 'MAD' })).thenFails('currency_mismatch'));

    it("a currency other than the beneficiary's account: currency_mismatch", () =>
      spec.given([]).when(createCommand({ beneficiary: { ...beneficiary, currency: 'TND' } })).thenFails('currency_mismatch'));

    it('beneficiary_not_authorized comes before currency_mismatch (contract validation order)', () =>
      spec.given([]).when(createCommand({ payerCurrency: 'MAD', beneficiary: { ...beneficiary, status: 'revoked' } })).thenFails('beneficiary_not_authorized'));
  });

  describe('an authorized user approves', () => {
    const approve = (now: Date, beneficiaryAvailable = true): SupplierPaymentCommand => ({ type: 'ApproveSupplierPayment', supplierPaymentId, beneficiaryAvailable, now });

    it('starts the ledger transfer under the operation id derived from the payment id', () => spec.given([created]).when(approve(at(1))).then([started]));

    it('beneficiary revoked since creation: declined with beneficiary_unavailable, no transfer', () =>
      spec
        .given([created])
        .when(approve(at(1), false))
        .then([{ type: 'SupplierPaymentDeclined', supplierPaymentId, reason: 'beneficiary_unavailable', declinedAt: at(1).toISOString() }]));

    it('at or past the approval deadline: invalid_status', () => spec.given([created]).when(approve(deadline)).thenFails('invalid_status'));

    it('while another approval is under way: invalid_status', () => spec.given([created, started]).when(approve(at(2))).thenFails('invalid_status'));

    it.each(finals)('on a %s payment: invalid_status', (_status, history) => spec.given(history).when(approve(at(2))).thenFails('invalid_status'));

    it('funds move: succeeded with fee_amount and succeeded_at', () =>
      spec.given([created, started]).when({ type: 'CompleteApproval', supplierPaymentId, outcome: completed, now: at(1) }).then([succeeded]));

    it('balance insufficient: declined with insufficient_balance', () =>
      spec
        .given([created, started])
        .when({ type: 'CompleteApproval', supplierPaymentId, outcome: { status: 'rejected', reason: 'insufficient_balance' }, now: at(1) })
        .then([declined]));

    it('an outcome recorded already (a replay after a crash) decides nothing', () =>
      spec.given([created, started, succeeded]).when({ type: 'CompleteApproval', supplierPaymentId, outcome: completed, now: at(5) }).then([]));

    it('a debit other than amount + fee is refused (the business pays the fee on top)', () =>
      expect(() =>
        supplierPaymentDecider.decide(
          { type: 'CompleteApproval', supplierPaymentId, outcome: { ...completed, debitedAmount: 5_000_000 }, now: at(1) },
          fold([created, started]),
        ),
      ).toThrow(/not the amount/));
  });

  describe('the approver rejects', () => {
    it('awaiting approval: rejected', () => spec.given([created]).when({ type: 'RejectSupplierPayment', supplierPaymentId, now: at(1) }).then([rejected]));
    it('while the approval is under way: invalid_status (money may be moving)', () =>
      spec.given([created, started]).when({ type: 'RejectSupplierPayment', supplierPaymentId, now: at(2) }).thenFails('invalid_status'));
    it.each(finals)('on a %s payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'RejectSupplierPayment', supplierPaymentId, now: at(2) }).thenFails('invalid_status'));
  });

  describe('cancel supplier payment', () => {
    it('awaiting approval: canceled', () => spec.given([created]).when({ type: 'CancelSupplierPayment', supplierPaymentId, now: at(1) }).then([canceled]));
    it('while the approval is under way: invalid_status (money may be moving)', () =>
      spec.given([created, started]).when({ type: 'CancelSupplierPayment', supplierPaymentId, now: at(2) }).thenFails('invalid_status'));
    it.each(finals)('on a %s payment: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'CancelSupplierPayment', supplierPaymentId, now: at(2) }).thenFails('invalid_status'));
    // Found by the model-based test: a payment awaiting approval, not yet swept, was canceled at or after its approval deadline.
    it('at the approval deadline, or 1 ms past it, before the sweep records it: expired, so invalid_status', () => {
      spec.given([created]).when({ type: 'CancelSupplierPayment', supplierPaymentId, now: deadline }).thenFails('invalid_status');
      spec.given([created]).when({ type: 'CancelSupplierPayment', supplierPaymentId, now: afterDeadline(1) }).thenFails('invalid_status');
    });
    it('1 ms before the approval deadline: canceled', () =>
      spec
        .given([created])
        .when({ type: 'CancelSupplierPayment', supplierPaymentId, now: afterDeadline(-1) })
        .then([{ type: 'SupplierPaymentCanceled', supplierPaymentId, canceledAt: afterDeadline(-1).toISOString() }]));
  });

  describe('approval deadline (7 days)', () => {
    const expire = (now: Date): SupplierPaymentCommand => ({ type: 'ExpireSupplierPayment', supplierPaymentId, now });
    it('at expires_at a payment awaiting approval expires', () => spec.given([created]).when(expire(deadline)).then([expired]));
    it('before expires_at nothing happens', () => spec.given([created]).when(expire(afterDeadline(-1))).then([]));
    it('an approval under way is completed, not expired', () => spec.given([created, started]).when(expire(afterDeadline(60_000))).then([]));
    it.each(finals)('a %s payment does not expire', (_status, history) => spec.given(history).when(expire(afterDeadline(DAY_MS))).then([]));
  });

  describe('resource', () => {
    const resourceOf = (events: SupplierPaymentEvent[]) => {
      const state = fold(events);
      if (state.status === 'none') throw new Error('no supplier payment');
      return toSupplierPaymentResource(state);
    };

    it('awaiting approval shows approval_url, no fee, no approval', () =>
      expect(resourceOf([created])).toEqual({
        id: supplierPaymentId,
        object: 'supplier_payment',
        status: 'awaiting_approval',
        decline_reason: null,
        payer_connection: 'conn_business',
        beneficiary: 'ben_1',
        amount: 5_000_000,
        currency: 'DZD',
        invoice_reference: 'INV-2026-001',
        description: 'November supplies',
        approval_url: terms.approvalUrl,
        fee_amount: null,
        expires_at: deadline.toISOString(),
        approved_at: null,
        succeeded_at: null,
        created_at: t0.toISOString(),
      }));

    it('an approval under way is still awaiting_approval to the outside', () =>
      expect(resourceOf([created, started])).toMatchObject({ status: 'awaiting_approval', approved_at: null }));

    it('succeeded: approval_url null; approved_at, succeeded_at and fee_amount set', () =>
      expect(resourceOf([created, started, succeeded])).toMatchObject({
        status: 'succeeded',
        approval_url: null,
        fee_amount: 50_000,
        approved_at: at(1).toISOString(),
        succeeded_at: at(1).toISOString(),
      }));

    it.each(finals.filter(([status]) => status !== 'succeeded'))('%s: approval_url null, no fee', (status, history) =>
      expect(resourceOf(history)).toMatchObject({ status, approval_url: null, fee_amount: null, succeeded_at: null }));

    it('declined shows its decline_reason', () => expect(resourceOf([created, started, declined]).decline_reason).toBe('insufficient_balance'));
  });
});
