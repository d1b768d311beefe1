import fc from 'fast-check';
import { CURRENCIES, type Currency } from '@pay/kernel';
import { advanceClock, attempt, checkVerdict, DAY_MS, deepFreeze, expectDeterministicFold, expectEqual, isNonNegativeInteger, MINUTE_MS, ticks, type Tick, type Verdict } from '@pay/testing';
import {
  supplierPaymentDecider,
  toSupplierPaymentResource,
  type BeneficiaryFacts,
  type SupplierPayment,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
} from './index';

/**
 * Model-based test of the supplier payment decider. The model is the specification's state table for
 * a supplier payment (payments-service.md "States and transitions", Authentication rule 3, contract
 * §2 validation order, §4 deadlines and `rejected`/`expired`, §8 approve and reject helpers), written
 * without reading the decider.
 */

type Status = 'none' | 'awaiting_approval' | 'succeeded' | 'rejected' | 'declined' | 'canceled' | 'expired';
const FINAL: readonly Status[] = ['succeeded', 'rejected', 'declined', 'canceled', 'expired'];

interface Model {
  status: Status;
  amount: number;
  currency: Currency;
  expiresAtMs: number;
  /** An authorized user approved; the ledger's answer is not recorded yet (still awaiting_approval outside). */
  approving: boolean;
  approvedAtMs: number | null;
  declineReason: 'insufficient_balance' | 'beneficiary_unavailable' | null;
  feeAmount: number | null;
}

const none: Model = { status: 'none', amount: 0, currency: 'DZD', expiresAtMs: 0, approving: false, approvedAtMs: null, declineReason: null, feeAmount: null };

type BeneficiaryCase = 'authorized' | 'revoked' | 'missing' | 'of_another_business' | 'another_beneficiary';
type Step =
  | { type: 'create'; amount: number; currency: Currency; payerCurrency: Currency | 'same'; beneficiary: BeneficiaryCase; beneficiaryCurrency: Currency | 'same'; ttlMs: number }
  | { type: 'approve'; beneficiaryAvailable: boolean }
  | { type: 'complete'; outcome: { status: 'completed'; feeBasisPoints: number; debit: 'amount_plus_fee' | 'off_by_one' | 'negative_fee' } | { status: 'rejected' } }
  | { type: 'reject' }
  | { type: 'cancel' }
  | { type: 'expire' }
  | { type: 'repeat' };

const supplierPaymentId = 'spay_model00000000000000001';
const payer = 'conn_business';
const t0Ms = Date.parse('2026-11-22T10:00:00.000Z');

// ---- the model: the specification's rules -------------------------------------------------------

const invalidStatus: Verdict<Model> = { kind: 'refuse', code: 'invalid_status' };
/** At the approval deadline the payment is expired (contract §4), whether or not the sweep has recorded it yet. */
const pastDeadline = (model: Model, nowMs: number) => nowMs >= model.expiresAtMs;
const open = (model: Model, nowMs: number) => model.status === 'awaiting_approval' && !model.approving && !pastDeadline(model, nowMs);

const expected = (model: Model, command: SupplierPaymentCommand): Verdict<Model> => {
  const nowMs = command.now.getTime();
  if (command.type === 'CreateSupplierPayment') {
    if (model.status !== 'none') return { kind: 'noop' }; // a retried create: the same payment
    const { terms, beneficiary } = command;
    // Authorization before currency_mismatch (contract §2): a beneficiary that does not exist, is revoked or belongs to another business.
    if (!beneficiary || beneficiary.id !== terms.beneficiary || beneficiary.status !== 'authorized' || beneficiary.business !== terms.payerConnection) {
      return { kind: 'refuse', code: 'beneficiary_not_authorized' };
    }
    if (command.payerCurrency !== terms.currency || beneficiary.currency !== terms.currency) return { kind: 'refuse', code: 'currency_mismatch' };
    return { kind: 'accept', next: { ...none, status: 'awaiting_approval', amount: terms.amount, currency: terms.currency, expiresAtMs: command.expiresAt.getTime() } };
  }
  if (model.status === 'none') return { kind: 'unchanged' }; // unknown id: answered 404 before deciding
  switch (command.type) {
    case 'ApproveSupplierPayment':
      if (!open(model, nowMs)) return invalidStatus;
      // Funds cannot move to a beneficiary revoked since creation: declined with beneficiary_unavailable.
      if (!command.beneficiaryAvailable) return { kind: 'accept', next: { ...model, status: 'declined', declineReason: 'beneficiary_unavailable' } };
      return { kind: 'accept', next: { ...model, approving: true, approvedAtMs: nowMs } };
    case 'CompleteApproval': {
      if (model.status !== 'awaiting_approval' || !model.approving) return { kind: 'unchanged' }; // a replay, or nothing approved
      const { outcome } = command;
      if (outcome.status === 'rejected') return { kind: 'accept', next: { ...model, status: 'declined', approving: false, approvedAtMs: null, declineReason: 'insufficient_balance' } };
      // The business is debited amount + fee_amount, the supplier credited amount; a fee is never negative.
      if (!isNonNegativeInteger(outcome.feeAmount) || outcome.debitedAmount !== model.amount + outcome.feeAmount) return { kind: 'unchanged' };
      return { kind: 'accept', next: { ...model, status: 'succeeded', approving: false, feeAmount: outcome.feeAmount } };
    }
    case 'RejectSupplierPayment':
      if (!open(model, nowMs)) return invalidStatus;
      return { kind: 'accept', next: { ...model, status: 'rejected' } };
    case 'CancelSupplierPayment':
      // Cancel applies only to awaiting_approval; an approved one is on its way, an expired one is final.
      if (!open(model, nowMs)) return invalidStatus;
      return { kind: 'accept', next: { ...model, status: 'canceled' } };
    case 'ExpireSupplierPayment':
      if (model.status !== 'awaiting_approval' || model.approving || !pastDeadline(model, nowMs)) return { kind: 'noop' };
      return { kind: 'accept', next: { ...model, status: 'expired' } };
  }
};

const observe = (state: SupplierPayment): Model => {
  if (state.status === 'none') return none;
  const resource = toSupplierPaymentResource(state);
  const approval = state.status === 'awaiting_approval' ? state.approval : null;
  return {
    status: state.status,
    amount: resource.amount,
    currency: resource.currency,
    expiresAtMs: Date.parse(resource.expires_at),
    approving: approval !== null,
    approvedAtMs: approval ? Date.parse(approval.approvedAt) : resource.approved_at === null ? null : Date.parse(resource.approved_at),
    declineReason: resource.decline_reason,
    feeAmount: resource.fee_amount,
  };
};

// ---- commands ---------------------------------------------------------------------------------

const currencies = fc.constantFrom(...CURRENCIES);
const sameOr = fc.oneof({ weight: 6, arbitrary: fc.constant('same' as const) }, { weight: 1, arbitrary: currencies });
const creates = (ttlMs: fc.Arbitrary<number>, beneficiary: fc.Arbitrary<BeneficiaryCase>) =>
  fc.record({
    type: fc.constant('create' as const),
    amount: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 100_000_000_000 })),
    currency: currencies,
    payerCurrency: sameOr,
    beneficiary,
    beneficiaryCurrency: sameOr,
    ttlMs,
  });
const beneficiaryCases = fc.oneof(
  { weight: 6, arbitrary: fc.constant<BeneficiaryCase>('authorized') },
  { weight: 1, arbitrary: fc.constantFrom<BeneficiaryCase>('revoked', 'missing', 'of_another_business', 'another_beneficiary') },
);

const steps: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: creates(fc.oneof(fc.constant(7 * DAY_MS), fc.integer({ min: 5 * MINUTE_MS, max: 30 * DAY_MS })), beneficiaryCases) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('approve' as const), beneficiaryAvailable: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('complete' as const),
      outcome: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            status: fc.constant('completed' as const),
            feeBasisPoints: fc.oneof(fc.constantFrom(0, 10_000), fc.integer({ min: 0, max: 10_000 })),
            debit: fc.constantFrom('amount_plus_fee' as const, 'amount_plus_fee' as const, 'amount_plus_fee' as const, 'off_by_one' as const, 'negative_fee' as const),
          }),
        },
        { weight: 1, arbitrary: fc.constant({ status: 'rejected' as const }) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'reject' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'cancel' as const }) },
  { weight: 2, arbitrary: fc.constant({ type: 'expire' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'repeat' as const }) },
);

const beneficiaryFacts = (step: Extract<Step, { type: 'create' }>): BeneficiaryFacts | null => {
  const currency = step.beneficiaryCurrency === 'same' ? step.currency : step.beneficiaryCurrency;
  const facts: BeneficiaryFacts = { id: 'ben_1', business: payer, currency, status: 'authorized' };
  switch (step.beneficiary) {
    case 'authorized':
      return facts;
    case 'revoked':
      return { ...facts, status: 'revoked' };
    case 'missing':
      return null;
    case 'of_another_business':
      return { ...facts, business: 'conn_other_business' };
    case 'another_beneficiary':
      return { ...facts, id: 'ben_2' };
  }
};

const toCommand = (step: Exclude<Step, { type: 'repeat' }>, model: Model, now: Date): SupplierPaymentCommand => {
  const amount = model.status === 'none' ? 1_000 : model.amount;
  switch (step.type) {
    case 'create':
      return {
        type: 'CreateSupplierPayment',
        terms: {
          supplierPaymentId,
          integratorId: 'int_1',
          payerConnection: payer,
          beneficiary: 'ben_1',
          amount: step.amount,
          currency: step.currency,
          invoiceReference: 'INV-1',
          description: null,
          approvalUrl: `http://localhost:3000/hosted/supplier_payments/${supplierPaymentId}`,
        },
        payerCurrency: step.payerCurrency === 'same' ? step.currency : step.payerCurrency,
        beneficiary: beneficiaryFacts(step),
        expiresAt: new Date(now.getTime() + step.ttlMs),
        now,
      };
    case 'approve':
      return { type: 'ApproveSupplierPayment', supplierPaymentId, beneficiaryAvailable: step.beneficiaryAvailable, now };
    case 'complete': {
      const { outcome } = step;
      if (outcome.status === 'rejected') return { type: 'CompleteApproval', supplierPaymentId, outcome: { status: 'rejected', reason: 'insufficient_balance' }, now };
      const fee = Math.floor((amount * outcome.feeBasisPoints) / 10_000);
      const [feeAmount, debitedAmount] = outcome.debit === 'amount_plus_fee' ? [fee, amount + fee] : outcome.debit === 'off_by_one' ? [fee, amount + fee + 1] : [-(fee + 1), amount - fee - 1];
      return { type: 'CompleteApproval', supplierPaymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount, debitedAmount }, now };
    }
    case 'reject':
      return { type: 'RejectSupplierPayment', supplierPaymentId, now };
    case 'cancel':
      return { type: 'CancelSupplierPayment', supplierPaymentId, now };
    case 'expire':
      return { type: 'ExpireSupplierPayment', supplierPaymentId, now };
  }
};

// ---- the run ------------------------------------------------------------------------------------

const run = (plan: { step: Step; tick: Tick }[]) => {
  let model = none;
  let state: SupplierPayment = supplierPaymentDecider.initialState;
  let events: SupplierPaymentEvent[] = [];
  let nowMs = t0Ms;
  let previous: SupplierPaymentCommand | null = null;
  const history: SupplierPaymentCommand[] = [];

  for (const { step, tick } of plan) {
    let command: SupplierPaymentCommand;
    if (step.type === 'repeat') {
      if (!previous) continue;
      command = previous;
    } else {
      nowMs = advanceClock(nowMs, tick, model.status === 'none' ? null : model.expiresAtMs);
      command = toCommand(step, model, new Date(nowMs));
    }
    previous = command;
    history.push(command);
    const verdict = expected(model, command);
    const result = attempt(() => supplierPaymentDecider.decide(command, state));
    checkVerdict(verdict, result, () => `commands:\n  ${history.map((c) => JSON.stringify(c)).join('\n  ')}\n  model before the last: ${JSON.stringify(model)}`);

    const before = state;
    if (result.ok) {
      state = deepFreeze(deepFreeze(result.events).reduce(supplierPaymentDecider.evolve, state));
      events = [...events, ...result.events];
    }
    if (verdict.kind === 'accept') model = verdict.next;

    expectEqual(observe(state), model);
    expectDeterministicFold(supplierPaymentDecider.evolve, supplierPaymentDecider.initialState, events, state);
    if (before.status !== 'none' && FINAL.includes(before.status)) expectEqual(state, before);
    if (before.status !== 'none' && state.status !== 'none') expectEqual(state.terms, before.terms);
    // Money: a succeeded payment carries a non-negative integer fee, approved before the deadline.
    if (state.status === 'succeeded') {
      expect(isNonNegativeInteger(state.feeAmount)).toBe(true);
      expect(Date.parse(state.approval.approvedAt)).toBeLessThan(Date.parse(state.terms.expiresAt));
    }
  }
};

const plans = fc.array(fc.record({ step: steps, tick: ticks }), { maxLength: 30, size: 'max' });
const same: Tick = { kind: 'same' };
const validCreate = creates(fc.constant(7 * DAY_MS), fc.constant<BeneficiaryCase>('authorized')).map((create) => ({ ...create, payerCurrency: 'same' as const, beneficiaryCurrency: 'same' as const }));

describe('supplier payment decider against a model of the specification', () => {
  it('any sequence of commands, at any time: the state agrees with the state table, refusals are refused, money adds up', () =>
    fc.assert(
      fc.property(fc.option(creates(fc.constant(7 * DAY_MS), beneficiaryCases), { freq: 6 }), plans, (create, plan) => {
        run(create ? [{ step: create, tick: same }, ...plan] : plan);
      }),
      { numRuns: 300 },
    ));

  it('from an approval under way, any sequence of commands: debited once, or declined, never canceled or expired', () =>
    fc.assert(
      fc.property(validCreate, plans, (create, plan) => {
        run([{ step: create, tick: same }, { step: { type: 'approve', beneficiaryAvailable: true }, tick: { kind: 'after', ms: 1 } }, ...plan]);
      }),
      { numRuns: 300 },
    ));
});
