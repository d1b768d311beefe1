import fc from 'fast-check';
import { CURRENCIES, type Currency } from '@pay/kernel';
import { advanceClock, attempt, checkVerdict, deepFreeze, expectDeterministicFold, expectEqual, isNonNegativeInteger, MINUTE_MS, ticks, type Tick, type Verdict } from '@pay/testing';
import { paymentDecider, refundableAmount, type Payment, type PaymentCommand, type PaymentEvent } from './index';

/**
 * Model-based test of the payment decider. The model below is the specification's state table for a
 * payment (payments-service.md "States and transitions", contract §4 and §8) and the refund rules of
 * contract §14, written without reading the decider: random sequences of commands, in any order and
 * repeated, at times moving forward (exactly at and 1 ms past the deadline too), must leave the
 * decider's state where the model says.
 */

type Status = 'none' | 'pending' | 'succeeded' | 'declined' | 'canceled' | 'expired';
const FINAL: readonly Status[] = ['succeeded', 'declined', 'canceled', 'expired'];

interface Model {
  status: Status;
  amount: number;
  currency: Currency;
  expiresAtMs: number;
  /** The customer authorized on the hosted page; the ledger's answer is not recorded yet (still `pending` outside). */
  authorizing: boolean;
  declineReason: 'customer_declined' | 'insufficient_balance' | null;
  feeAmount: number | null;
  netAmount: number | null;
  amountRefunded: number;
  /** Refunds under way: their amounts are held against what is refundable. */
  reserved: Record<string, number>;
  /** Refund ids whose outcome is recorded: the same id again is a retry, never a second refund. */
  settled: string[];
}

const none: Model = {
  status: 'none',
  amount: 0,
  currency: 'DZD',
  expiresAtMs: 0,
  authorizing: false,
  declineReason: null,
  feeAmount: null,
  netAmount: null,
  amountRefunded: 0,
  reserved: {},
  settled: [],
};

/** How a refund amount is asked for: omitted (all that is refundable), or around a share of the refundable amount or of the payment. */
type RefundAmount = null | { of: 'refundable' | 'amount'; basisPoints: number; plus: number };
type Outcome = { status: 'completed'; feeBasisPoints: number; split: 'exact' | 'off_by_one' | 'negative_fee' } | { status: 'rejected' };

type Step =
  | { type: 'create'; amount: number; currency: Currency; ttlMs: number }
  | { type: 'authorize'; customerCurrency: Currency | 'payment_currency' }
  | { type: 'complete'; outcome: Outcome }
  | { type: 'decline' }
  | { type: 'cancel' }
  | { type: 'expire' }
  | { type: 'reserveRefund'; refundId: string; amount: RefundAmount; reason: string | null }
  | { type: 'settleRefund'; refundId: string; refunded: boolean }
  | { type: 'repeat' };

const paymentId = 'pay_model000000000000000001';
const t0Ms = Date.parse('2026-11-22T10:00:00.000Z');

// ---- the model: the specification's rules -------------------------------------------------------

const invalidStatus: Verdict<Model> = { kind: 'refuse', code: 'invalid_status' };
/** The authorization deadline has come: the payment is expired (contract §4), whether or not the sweep has recorded it yet. */
const pastDeadline = (model: Model, nowMs: number) => nowMs >= model.expiresAtMs;
/** Pending, nobody authorizing, before the deadline: the customer can still act on it, the integrator can still cancel it. */
const open = (model: Model, nowMs: number) => model.status === 'pending' && !model.authorizing && !pastDeadline(model, nowMs);
const refundable = (model: Model) => model.amount - model.amountRefunded - Object.values(model.reserved).reduce((sum, amount) => sum + amount, 0);

const expected = (model: Model, command: PaymentCommand): Verdict<Model> => {
  const nowMs = 'now' in command ? command.now.getTime() : 0;
  if (command.type === 'CreatePayment') {
    // Same idempotency key, same payment: a retried create changes nothing.
    if (model.status !== 'none') return { kind: 'noop' };
    return { kind: 'accept', next: { ...none, status: 'pending', amount: command.terms.amount, currency: command.terms.currency, expiresAtMs: command.expiresAt.getTime() } };
  }
  if (model.status === 'none') return { kind: 'unchanged' }; // unknown id: the service answers 404 before deciding
  switch (command.type) {
    case 'StartAuthorization':
      if (!open(model, nowMs)) return invalidStatus;
      if (command.customerCurrency !== model.currency) return { kind: 'refuse', code: 'currency_mismatch' }; // and the payment stays pending
      return { kind: 'accept', next: { ...model, authorizing: true } };
    case 'CompleteAuthorization': {
      if (model.status !== 'pending') return { kind: 'unchanged' }; // an outcome recorded already (a replay)
      if (!model.authorizing) return { kind: 'unchanged' }; // nobody authorized: there is no outcome to record
      const { outcome } = command;
      if (outcome.status === 'rejected') return { kind: 'accept', next: { ...model, status: 'declined', authorizing: false, declineReason: 'insufficient_balance' } };
      // fee_amount + net_amount = amount; the fee is a charge (never negative) and the merchant is never debited.
      const { feeAmount, netAmount } = outcome;
      if (!isNonNegativeInteger(feeAmount) || !isNonNegativeInteger(netAmount) || feeAmount + netAmount !== model.amount) return { kind: 'unchanged' };
      return { kind: 'accept', next: { ...model, status: 'succeeded', authorizing: false, feeAmount, netAmount } };
    }
    case 'DeclinePayment':
      if (!open(model, nowMs)) return invalidStatus;
      return { kind: 'accept', next: { ...model, status: 'declined', declineReason: 'customer_declined' } };
    case 'CancelPayment':
      // Only a pending payment; an expired one (deadline come) is final, and so is one the customer authorized.
      if (!open(model, nowMs)) return invalidStatus;
      return { kind: 'accept', next: { ...model, status: 'canceled' } };
    case 'ExpirePayment':
      if (model.status !== 'pending' || model.authorizing || !pastDeadline(model, nowMs)) return { kind: 'noop' };
      return { kind: 'accept', next: { ...model, status: 'expired' } };
    case 'ReserveRefund': {
      if (model.status !== 'succeeded') return invalidStatus;
      if (command.refundId in model.reserved || model.settled.includes(command.refundId)) return { kind: 'noop' }; // the same refund again
      const amount = command.amount ?? refundable(model);
      if (!Number.isSafeInteger(amount) || amount < 1 || amount > refundable(model)) return { kind: 'refuse', code: 'invalid_amount' };
      return { kind: 'accept', next: { ...model, reserved: { ...model.reserved, [command.refundId]: amount } } };
    }
    case 'SettleRefund': {
      const held = model.reserved[command.refundId];
      if (model.status !== 'succeeded' || held === undefined) return { kind: 'noop' }; // settled already, or never reserved
      const { [command.refundId]: _settled, ...reserved } = model.reserved;
      return {
        kind: 'accept',
        next: { ...model, reserved, settled: [...model.settled, command.refundId], amountRefunded: model.amountRefunded + (command.refunded ? held : 0) },
      };
    }
    default: {
      const unknown: never = command;
      throw new Error(`no model for ${JSON.stringify(unknown)}`);
    }
  }
};

/** What of the decider's state the model speaks about. */
const observe = (state: Payment): Model => {
  if (state.status === 'none') return none;
  const common = {
    ...none,
    status: state.status,
    amount: state.terms.amount,
    currency: state.terms.currency,
    expiresAtMs: Date.parse(state.terms.expiresAt),
  };
  switch (state.status) {
    case 'pending':
      return { ...common, authorizing: state.authorization !== null };
    case 'succeeded':
      return {
        ...common,
        feeAmount: state.feeAmount,
        netAmount: state.netAmount,
        amountRefunded: state.amountRefunded ?? 0,
        reserved: Object.fromEntries(Object.entries(state.pendingRefunds ?? {}).map(([id, r]) => [id, r.amount])),
        settled: state.settledRefundIds ?? [],
      };
    case 'declined':
      return { ...common, declineReason: state.reason };
    default:
      return common;
  }
};

// ---- commands: arbitrary, well-typed, resolved against the clock and the model at run time ------

const currencies = fc.constantFrom(...CURRENCIES);
const refundIds = fc.constantFrom('re_1', 're_2', 're_3');
const steps: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('create' as const),
      amount: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 100_000_000_000 })),
      currency: currencies,
      ttlMs: fc.oneof(fc.constant(30 * MINUTE_MS), fc.integer({ min: 1, max: 2 * 60 * MINUTE_MS })),
    }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('authorize' as const), customerCurrency: fc.oneof({ weight: 4, arbitrary: fc.constant('payment_currency' as const) }, currencies) }) },
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
            split: fc.constantFrom('exact' as const, 'exact' as const, 'exact' as const, 'off_by_one' as const, 'negative_fee' as const),
          }),
        },
        { weight: 1, arbitrary: fc.constant({ status: 'rejected' as const }) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'decline' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'cancel' as const }) },
  { weight: 2, arbitrary: fc.constant({ type: 'expire' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('reserveRefund' as const),
      refundId: refundIds,
      amount: fc.oneof(
        fc.constant(null),
        fc.record({ of: fc.constantFrom('refundable' as const, 'amount' as const), basisPoints: fc.oneof(fc.constantFrom(0, 5_000, 10_000), fc.integer({ min: 0, max: 10_000 })), plus: fc.constantFrom(-1, 0, 0, 0, 1) }),
      ),
      reason: fc.option(fc.string({ maxLength: 20 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('settleRefund' as const), refundId: refundIds, refunded: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ type: 'repeat' as const }) },
);

const share = (of: number, basisPoints: number) => Math.floor((of * basisPoints) / 10_000);

const toCommand = (step: Exclude<Step, { type: 'repeat' }>, model: Model, now: Date): PaymentCommand => {
  const amount = model.status === 'none' ? 1_000 : model.amount;
  switch (step.type) {
    case 'create':
      return {
        type: 'CreatePayment',
        terms: {
          paymentId,
          integratorId: 'int_1',
          amount: step.amount,
          currency: step.currency,
          orderReference: 'order-1',
          merchantConnection: 'conn_1',
          returnUrl: 'https://shop.example/return',
          authorizationUrl: `http://localhost:3000/hosted/payments/${paymentId}`,
        },
        expiresAt: new Date(now.getTime() + step.ttlMs),
        now,
      };
    case 'authorize':
      return { type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: step.customerCurrency === 'payment_currency' ? model.currency : step.customerCurrency, now };
    case 'complete': {
      if (step.outcome.status === 'rejected') return { type: 'CompleteAuthorization', paymentId, outcome: { status: 'rejected', reason: 'insufficient_balance' }, now };
      const fee = share(amount, step.outcome.feeBasisPoints);
      const [feeAmount, netAmount] =
        step.outcome.split === 'exact' ? [fee, amount - fee] : step.outcome.split === 'off_by_one' ? [fee, amount - fee + 1] : [-(fee + 1), amount + fee + 1];
      return { type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_1', feeAmount, netAmount }, now };
    }
    case 'decline':
      return { type: 'DeclinePayment', paymentId, now };
    case 'cancel':
      return { type: 'CancelPayment', paymentId, now };
    case 'expire':
      return { type: 'ExpirePayment', paymentId, now };
    case 'reserveRefund': {
      const { amount: asked } = step;
      const base = asked === null ? 0 : asked.of === 'refundable' ? Math.max(refundable(model), 0) : amount;
      return { type: 'ReserveRefund', paymentId, refundId: step.refundId, amount: asked === null ? null : share(base, asked.basisPoints) + asked.plus, reason: step.reason, now };
    }
    case 'settleRefund':
      return { type: 'SettleRefund', paymentId, refundId: step.refundId, refunded: step.refunded };
  }
};

// ---- the run: decide, fold, compare with the model, check the invariants, after every step -----

const run = (plan: { step: Step; tick: Tick }[]) => {
  let model = none;
  let state: Payment = paymentDecider.initialState;
  let events: PaymentEvent[] = [];
  let nowMs = t0Ms;
  let previous: PaymentCommand | null = null;
  const history: PaymentCommand[] = [];

  for (const { step, tick } of plan) {
    let command: PaymentCommand;
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
    const result = attempt(() => paymentDecider.decide(command, state));
    checkVerdict(verdict, result, () => `commands:\n  ${history.map((c) => JSON.stringify(c)).join('\n  ')}\n  model before the last: ${JSON.stringify(model)}`);

    const before = state;
    if (result.ok) {
      deepFreeze(result.events);
      state = deepFreeze(result.events.reduce(paymentDecider.evolve, state));
      events = [...events, ...result.events];
    }
    if (verdict.kind === 'accept') model = verdict.next;

    // The decider's state agrees with the model.
    expectEqual(observe(state), model);
    // Evolve is deterministic: the same events folded twice give the same state, the one kept step by step.
    expectDeterministicFold(paymentDecider.evolve, paymentDecider.initialState, events, state);
    // A final payment never changes (a succeeded one only records its refunds).
    if (before.status !== 'none' && FINAL.includes(before.status)) {
      expect(state.status).toBe(before.status);
      if (state.status === 'succeeded' && before.status === 'succeeded') {
        const refundsAside = { amountRefunded: 0, pendingRefunds: {}, settledRefundIds: [] };
        expectEqual({ ...state, ...refundsAside }, { ...before, ...refundsAside });
      } else {
        expectEqual(state, before);
      }
    }
    if (before.status !== 'none' && state.status !== 'none') expectEqual(state.terms, before.terms);
    // Money: fee and net are non-negative integers adding up to the amount; refunds never exceed the amount.
    if (state.status === 'succeeded') {
      expect(isNonNegativeInteger(state.feeAmount) && isNonNegativeInteger(state.netAmount)).toBe(true);
      expect(state.feeAmount + state.netAmount).toBe(state.terms.amount);
      const refunded = state.amountRefunded ?? 0;
      expect(isNonNegativeInteger(refunded)).toBe(true);
      expect(refunded).toBeLessThanOrEqual(state.terms.amount);
      expect(refundableAmount(state)).toBeGreaterThanOrEqual(0);
      expect(Object.values(state.pendingRefunds ?? {}).every((r) => Number.isSafeInteger(r.amount) && r.amount >= 1)).toBe(true);
    }
  }
};

const refundSteps: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    type: fc.constant('reserveRefund' as const),
    refundId: refundIds,
    amount: fc.oneof(fc.constant(null), fc.record({ of: fc.constant('refundable' as const), basisPoints: fc.integer({ min: 0, max: 10_000 }), plus: fc.constantFrom(-1, 0, 1) })),
    reason: fc.constant(null),
  }),
  fc.record({ type: fc.constant('settleRefund' as const), refundId: refundIds, refunded: fc.boolean() }),
);
const plans = (stepArbitrary: fc.Arbitrary<Step>, maxLength: number) => fc.array(fc.record({ step: stepArbitrary, tick: ticks }), { maxLength, size: 'max' });
const now = { kind: 'same' } as const;
const creates = fc.record({
  type: fc.constant('create' as const),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
  currency: currencies,
  ttlMs: fc.constant(30 * MINUTE_MS),
});

describe('payment decider against a model of the specification', () => {
  it('any sequence of commands, at any time: the state agrees with the state table, refusals are refused, money adds up', () =>
    fc.assert(
      fc.property(fc.option(creates, { freq: 5 }), plans(steps, 30), (create, plan) => {
        run(create ? [{ step: create, tick: now }, ...plan] : plan);
      }),
      { numRuns: 300 },
    ));

  it('a succeeded payment under any sequence of refunds, settlements and other commands: never refunds more than its amount', () =>
    fc.assert(
      fc.property(creates, fc.integer({ min: 0, max: 10_000 }), plans(fc.oneof(steps, refundSteps, refundSteps), 30), (create, feeBasisPoints, plan) => {
        const succeed: { step: Step; tick: Tick }[] = [
          { step: create, tick: now },
          { step: { type: 'authorize', customerCurrency: 'payment_currency' }, tick: now },
          { step: { type: 'complete', outcome: { status: 'completed', feeBasisPoints, split: 'exact' } }, tick: now },
        ];
        run([...succeed, ...plan]);
      }),
      { numRuns: 300 },
    ));
});
