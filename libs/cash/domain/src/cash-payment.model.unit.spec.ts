import fc from 'fast-check';
import { CURRENCIES, type Currency } from '@pay/kernel';
import { advanceClock, attempt, checkVerdict, DAY_MS, deepFreeze, expectDeterministicFold, expectEqual, HOUR_MS, isNonNegativeInteger, MINUTE_MS, ticks, type Tick, type Verdict } from '@pay/testing';
import { cashPaymentDecider, paymentReferenceFrom, toCashPaymentResource, type CashPayment, type CashPaymentCommand, type CashPaymentEvent } from './index';

/**
 * Model-based test of the cash payment decider. The model is the specification's state table for a
 * cash payment (payments-service.md "States and transitions", the test helper `pay` of contract §8,
 * deadlines on the service clock of contract §4), written without reading the decider.
 */

type Status = 'none' | 'awaiting_payment' | 'succeeded' | 'canceled' | 'expired';
const FINAL: readonly Status[] = ['succeeded', 'canceled', 'expired'];

interface Model {
  status: Status;
  amount: number;
  currency: Currency;
  paymentReference: string;
  expiresAtMs: number;
  /** A cash agent validated the exact amount; the merchant's credit is not recorded yet (still awaiting_payment outside). */
  validating: boolean;
  cashPoint: string | null;
  receiptNumber: string | null;
  paidAtMs: number | null;
  feeAmount: number | null;
  netAmount: number | null;
}

const none: Model = {
  status: 'none',
  amount: 0,
  currency: 'DZD',
  paymentReference: '',
  expiresAtMs: 0,
  validating: false,
  cashPoint: null,
  receiptNumber: null,
  paidAtMs: null,
  feeAmount: null,
  netAmount: null,
};

type Step =
  | { type: 'create'; amount: number; currency: Currency; randomDigits: string; ttlMs: number }
  /** The agent validates cash: the exact amount, or one near it, or another. */
  | { type: 'validate'; amount: { exact: true; plus: -1 | 0 | 1 } | { exact: false; value: number }; cashPoint: string; receiptNumber: string }
  | { type: 'complete'; feeBasisPoints: number; split: 'exact' | 'off_by_one' | 'negative_fee' }
  | { type: 'cancel' }
  | { type: 'expire' }
  | { type: 'repeat' };

const cashPaymentId = 'cpay_model00000000000000001';
const t0Ms = Date.parse('2026-11-22T10:00:00.000Z');

// ---- the model: the specification's rules -------------------------------------------------------

const invalidStatus: Verdict<Model> = { kind: 'refuse', code: 'invalid_status' };
/** `expires_at` is the payment deadline: from it on, the reference can no longer be paid and the payment is expired. */
const pastDeadline = (model: Model, nowMs: number) => nowMs >= model.expiresAtMs;
const open = (model: Model, nowMs: number) => model.status === 'awaiting_payment' && !model.validating && !pastDeadline(model, nowMs);

const expected = (model: Model, command: CashPaymentCommand): Verdict<Model> => {
  const nowMs = command.now.getTime();
  if (command.type === 'CreateCashPayment') {
    if (model.status !== 'none') return { kind: 'noop' }; // a retried create: the same cash payment
    if (command.expiresAt.getTime() <= nowMs) return { kind: 'refuse', code: 'invalid_request' }; // a deadline must be ahead
    const { amount, currency, paymentReference } = command.terms;
    return { kind: 'accept', next: { ...none, status: 'awaiting_payment', amount, currency, paymentReference, expiresAtMs: command.expiresAt.getTime() } };
  }
  if (model.status === 'none') return { kind: 'unchanged' }; // unknown id: answered 404 before deciding
  switch (command.type) {
    case 'ValidateCash':
      // A final (or expired, or already validated) payment cannot be paid; an amount other than the exact one changes nothing.
      if (!open(model, nowMs)) return invalidStatus;
      if (command.amount !== model.amount) return { kind: 'refuse', code: 'invalid_amount' };
      return { kind: 'accept', next: { ...model, validating: true, cashPoint: command.cashPointId, receiptNumber: command.receiptNumber, paidAtMs: nowMs } };
    case 'CompleteCashValidation': {
      if (model.status !== 'awaiting_payment' || !model.validating) return { kind: 'unchanged' }; // a replay, or nothing validated
      const { feeAmount, netAmount } = command.outcome;
      if (!isNonNegativeInteger(feeAmount) || !isNonNegativeInteger(netAmount) || feeAmount + netAmount !== model.amount) return { kind: 'unchanged' };
      return { kind: 'accept', next: { ...model, status: 'succeeded', validating: false, feeAmount, netAmount } };
    }
    case 'CancelCashPayment':
      if (!open(model, nowMs)) return invalidStatus;
      return { kind: 'accept', next: { ...model, status: 'canceled' } };
    case 'ExpireCashPayment':
      // The deadline passes with no validated payment: expired, nobody credited.
      if (model.status !== 'awaiting_payment' || model.validating || !pastDeadline(model, nowMs)) return { kind: 'noop' };
      return { kind: 'accept', next: { ...model, status: 'expired' } };
  }
};

const observe = (state: CashPayment): Model => {
  if (state.status === 'none') return none;
  const { terms } = state;
  const common: Model = {
    ...none,
    status: state.status,
    amount: terms.amount,
    currency: terms.currency,
    paymentReference: terms.paymentReference,
    expiresAtMs: Date.parse(terms.expiresAt),
  };
  const resource = toCashPaymentResource(state);
  const paid = { cashPoint: resource.cash_point, receiptNumber: resource.receipt_number, paidAtMs: resource.paid_at === null ? null : Date.parse(resource.paid_at) };
  switch (state.status) {
    case 'awaiting_payment':
      return state.validation
        ? { ...common, validating: true, cashPoint: state.validation.cashPointId, receiptNumber: state.validation.receiptNumber, paidAtMs: Date.parse(state.validation.paidAt) }
        : common;
    case 'succeeded':
      return { ...common, ...paid, feeAmount: resource.fee_amount, netAmount: resource.net_amount };
    default:
      return common;
  }
};

// ---- commands ---------------------------------------------------------------------------------

const steps: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('create' as const),
      amount: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 100_000_000_000 })),
      currency: fc.constantFrom(...CURRENCIES),
      randomDigits: fc.stringMatching(/^[0-9]{9}$/),
      ttlMs: fc.oneof(fc.constant(3 * DAY_MS), fc.integer({ min: 5 * MINUTE_MS, max: 30 * DAY_MS }), fc.integer({ min: -MINUTE_MS, max: 0 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('validate' as const),
      amount: fc.oneof(
        { weight: 4, arbitrary: fc.record({ exact: fc.constant(true as const), plus: fc.constantFrom<-1 | 0 | 1>(0, 0, 0, -1, 1) }) },
        { weight: 1, arbitrary: fc.record({ exact: fc.constant(false as const), value: fc.integer({ min: 0, max: 100_000_000_000 }) }) },
      ),
      cashPoint: fc.constantFrom('cp_1', 'cp_2'),
      receiptNumber: fc.stringMatching(/^R-[0-9]{9}$/),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('complete' as const),
      feeBasisPoints: fc.oneof(fc.constantFrom(0, 10_000), fc.integer({ min: 0, max: 10_000 })),
      split: fc.constantFrom('exact' as const, 'exact' as const, 'exact' as const, 'off_by_one' as const, 'negative_fee' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'cancel' as const }) },
  { weight: 2, arbitrary: fc.constant({ type: 'expire' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'repeat' as const }) },
);

const toCommand = (step: Exclude<Step, { type: 'repeat' }>, model: Model, now: Date): CashPaymentCommand => {
  const amount = model.status === 'none' ? 1_000 : model.amount;
  switch (step.type) {
    case 'create':
      return {
        type: 'CreateCashPayment',
        terms: {
          cashPaymentId,
          integratorId: 'int_1',
          amount: step.amount,
          currency: step.currency,
          orderReference: 'order-1',
          merchantConnection: 'conn_1',
          paymentReference: paymentReferenceFrom(step.randomDigits),
          qrCodeUrl: `http://localhost:3000/hosted/cash_payments/${cashPaymentId}/qr.png`,
          instructionsUrl: `http://localhost:3000/hosted/cash_payments/${cashPaymentId}/instructions`,
        },
        expiresAt: new Date(now.getTime() + step.ttlMs),
        now,
      };
    case 'validate':
      return {
        type: 'ValidateCash',
        cashPaymentId,
        cashPointId: step.cashPoint,
        amount: step.amount.exact ? amount + step.amount.plus : step.amount.value,
        receiptNumber: step.receiptNumber,
        now,
      };
    case 'complete': {
      const fee = Math.floor((amount * step.feeBasisPoints) / 10_000);
      const [feeAmount, netAmount] = step.split === 'exact' ? [fee, amount - fee] : step.split === 'off_by_one' ? [fee, amount - fee + 1] : [-(fee + 1), amount + fee + 1];
      return { type: 'CompleteCashValidation', cashPaymentId, outcome: { entryId: 'je_1', feeAmount, netAmount }, now };
    }
    case 'cancel':
      return { type: 'CancelCashPayment', cashPaymentId, now };
    case 'expire':
      return { type: 'ExpireCashPayment', cashPaymentId, now };
  }
};

// ---- the run ------------------------------------------------------------------------------------

const run = (plan: { step: Step; tick: Tick }[]) => {
  let model = none;
  let state: CashPayment = cashPaymentDecider.initialState;
  let events: CashPaymentEvent[] = [];
  let nowMs = t0Ms;
  let previous: CashPaymentCommand | null = null;
  const history: CashPaymentCommand[] = [];

  for (const { step, tick } of plan) {
    let command: CashPaymentCommand;
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
    const result = attempt(() => cashPaymentDecider.decide(command, state));
    checkVerdict(verdict, result, () => `commands:\n  ${history.map((c) => JSON.stringify(c)).join('\n  ')}\n  model before the last: ${JSON.stringify(model)}`);

    const before = state;
    if (result.ok) {
      state = deepFreeze(deepFreeze(result.events).reduce(cashPaymentDecider.evolve, state));
      events = [...events, ...result.events];
    }
    if (verdict.kind === 'accept') model = verdict.next;

    expectEqual(observe(state), model);
    expectDeterministicFold(cashPaymentDecider.evolve, cashPaymentDecider.initialState, events, state);
    if (before.status !== 'none' && FINAL.includes(before.status)) expectEqual(state, before);
    if (before.status !== 'none' && state.status !== 'none') expectEqual(state.terms, before.terms);
    // Money: only the exact amount is ever credited, split into a non-negative fee and net.
    if (state.status === 'succeeded') {
      expect(isNonNegativeInteger(state.feeAmount) && isNonNegativeInteger(state.netAmount)).toBe(true);
      expect(state.feeAmount + state.netAmount).toBe(state.terms.amount);
      expect(Date.parse(state.validation.paidAt)).toBeLessThan(Date.parse(state.terms.expiresAt));
    }
  }
};

const creates = fc.record({
  type: fc.constant('create' as const),
  amount: fc.integer({ min: 1, max: 10_000_000 }),
  currency: fc.constantFrom(...CURRENCIES),
  randomDigits: fc.stringMatching(/^[0-9]{9}$/),
  ttlMs: fc.constantFrom(3 * DAY_MS, 5 * MINUTE_MS, HOUR_MS),
});

const plans = fc.array(fc.record({ step: steps, tick: ticks }), { maxLength: 30, size: 'max' });
const same: Tick = { kind: 'same' };

describe('cash payment decider against a model of the specification', () => {
  it('any sequence of commands, at any time: the state agrees with the state table, refusals are refused, money adds up', () =>
    fc.assert(
      fc.property(fc.option(creates, { freq: 6 }), plans, (create, plan) => {
        run(create ? [{ step: create, tick: same }, ...plan] : plan);
      }),
      { numRuns: 300 },
    ));

  it('from a cash validation under way, any sequence of commands: credited once, with the exact amount, or never', () =>
    fc.assert(
      fc.property(creates, plans, (create, plan) => {
        const validate: Step = { type: 'validate', amount: { exact: true, plus: 0 }, cashPoint: 'cp_1', receiptNumber: 'R-000000017' };
        run([{ step: create, tick: same }, { step: validate, tick: { kind: 'after', ms: 1 } }, ...plan]);
      }),
      { numRuns: 300 },
    ));
});
