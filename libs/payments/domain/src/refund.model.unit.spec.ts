import fc from 'fast-check';
import { advanceClock, attempt, checkVerdict, deepFreeze, expectDeterministicFold, expectEqual, isNonNegativeInteger, ticks, type Tick, type Verdict } from '@pay/testing';
import {
  paymentDecider,
  refundableAmount,
  refundDecider,
  toRefundResource,
  type Payment,
  type PaymentCommand,
  type PaymentEvent,
  type Refund,
  type RefundCommand,
  type RefundEvent,
  type RefundOutcome,
  type RefundTerms,
} from './index';

/**
 * Model-based test of refunds (contract §14), written from the contract, not from the code:
 * - the refund aggregate alone: requested once, then `succeeded` or `failed` (`insufficient_balance`), once;
 * - the whole process across the payment and its refunds: the amount reserved on the payment, the
 *   refund opened from the reservation, its outcome, then settled on the payment, in every order the
 *   service's steps can take (a crash between two steps, a retry, a recovery running them again).
 *   What the payment says is refunded is what the succeeded refunds moved, and that never exceeds
 *   the payment's amount.
 */

const paymentId = 'pay_model000000000000000001';
const t0Ms = Date.parse('2026-11-22T10:00:00.000Z');
const refundIds = ['re_1', 're_2', 're_3'] as const;
type RefundId = (typeof refundIds)[number];

type RefundStatus = 'none' | 'pending' | 'succeeded' | 'failed';
interface RefundModel {
  status: RefundStatus;
  amount: number | null;
  failureReason: 'insufficient_balance' | null;
}
const noRefund: RefundModel = { status: 'none', amount: null, failureReason: null };

/** The refund aggregate's table: the first request opens it (its terms stay), the first outcome closes it. */
const expectedOfRefund = (model: RefundModel, command: RefundCommand): Verdict<RefundModel> => {
  switch (command.type) {
    case 'RequestRefund':
      return model.status === 'none' ? { kind: 'accept', next: { ...model, status: 'pending', amount: command.terms.amount } } : { kind: 'noop' };
    case 'CompleteRefund':
      if (model.status !== 'pending') return { kind: 'noop' }; // not requested yet, or its outcome recorded already (a replay)
      return command.outcome.status === 'completed'
        ? { kind: 'accept', next: { ...model, status: 'succeeded' } }
        : { kind: 'accept', next: { ...model, status: 'failed', failureReason: command.outcome.reason } };
  }
};

const observeRefund = (state: Refund): RefundModel =>
  state.status === 'none' ? noRefund : { status: state.status, amount: state.terms.amount, failureReason: state.status === 'failed' ? state.failureReason : null };

const termsOf = (refundId: string, amount: number, createdAtMs: number): RefundTerms => ({
  refundId,
  integratorId: 'int_1',
  paymentId,
  amount,
  currency: 'DZD',
  reason: null,
  merchantConnection: 'conn_1',
  customerId: 'cus_1',
  createdAt: new Date(createdAtMs).toISOString(),
});

const outcomes: fc.Arbitrary<RefundOutcome> = fc.oneof(
  fc.record({ status: fc.constant('completed' as const), entryId: fc.constantFrom('je_1', 'je_2') }),
  fc.constant({ status: 'rejected' as const, reason: 'insufficient_balance' as const }),
);

/** One refund, checked after every step against its model: status, amount, failure reason, final states. */
const checkRefundStep = (model: RefundModel, before: Refund, state: Refund) => {
  expectEqual(observeRefund(state), model);
  if (before.status === 'succeeded' || before.status === 'failed') expectEqual(state, before);
  if (before.status !== 'none' && state.status !== 'none') expectEqual(state.terms, before.terms);
  if (state.status !== 'none') {
    const resource = toRefundResource(state);
    expect(resource.status).toBe(state.status);
    expect(resource.failure_reason).toBe(state.status === 'failed' ? 'insufficient_balance' : null);
    expect(isNonNegativeInteger(resource.amount) && resource.amount >= 1).toBe(true);
  }
};

// ---- the whole process: the payment's reservations and settlements, the refunds' own streams -----

interface ProcessModel {
  amount: number;
  amountRefunded: number;
  /** Held on the payment by refunds whose outcome is not settled there. */
  reserved: Partial<Record<RefundId, number>>;
  settled: RefundId[];
  refunds: Record<RefundId, RefundModel>;
}

type Step =
  /** POST /v1/refunds: the amount omitted (all that is refundable), or around a share of what is refundable. */
  | { type: 'reserve'; refundId: RefundId; amount: null | { basisPoints: number; plus: number } }
  /** The refund's stream opened from the reservation on the payment (the service reads the terms there). */
  | { type: 'open'; refundId: RefundId }
  /** The ledger's answer recorded on the refund. */
  | { type: 'complete'; refundId: RefundId; outcome: RefundOutcome }
  /** The refund's outcome settled on the payment (the service does it once the refund is final). */
  | { type: 'settle'; refundId: RefundId }
  /** The previous command again, as it was (a retry, a recovery running a step twice). */
  | { type: 'repeat' };

type Routed = { to: 'payment'; command: PaymentCommand } | { to: 'refund'; refundId: RefundId; command: RefundCommand };

const held = (model: ProcessModel) => Object.values(model.reserved).reduce((sum, amount) => sum + (amount ?? 0), 0);
const refundable = (model: ProcessModel) => model.amount - model.amountRefunded - held(model);

const expectedOfPayment = (model: ProcessModel, command: PaymentCommand): Verdict<ProcessModel> => {
  if (command.type === 'ReserveRefund') {
    const refundId = command.refundId as RefundId;
    if (model.reserved[refundId] !== undefined || model.settled.includes(refundId)) return { kind: 'noop' }; // the same refund again
    const amount = command.amount ?? refundable(model);
    if (amount < 1 || amount > refundable(model)) return { kind: 'refuse', code: 'invalid_amount' };
    return { kind: 'accept', next: { ...model, reserved: { ...model.reserved, [refundId]: amount } } };
  }
  if (command.type === 'SettleRefund') {
    const refundId = command.refundId as RefundId;
    const amount = model.reserved[refundId];
    if (amount === undefined) return { kind: 'noop' }; // settled already
    const { [refundId]: _settled, ...reserved } = model.reserved;
    return { kind: 'accept', next: { ...model, reserved, settled: [...model.settled, refundId], amountRefunded: model.amountRefunded + (command.refunded ? amount : 0) } };
  }
  throw new Error(`not a refund step: ${command.type}`);
};

/** The command a step sends, as the service would send it; null when the service would not send one at all. */
const toCommand = (step: Exclude<Step, { type: 'repeat' }>, payment: Payment, refunds: Record<RefundId, Refund>, model: ProcessModel, nowMs: number): Routed | null => {
  const now = new Date(nowMs);
  switch (step.type) {
    case 'reserve': {
      const amount = step.amount === null ? null : Math.floor((Math.max(refundable(model), 0) * step.amount.basisPoints) / 10_000) + step.amount.plus;
      return { to: 'payment', command: { type: 'ReserveRefund', paymentId, refundId: step.refundId, amount, reason: null, now } };
    }
    case 'open': {
      const reservation = payment.status === 'succeeded' ? payment.pendingRefunds?.[step.refundId] : undefined;
      if (!reservation) return null; // the service finds no reservation: it opens nothing
      return { to: 'refund', refundId: step.refundId, command: { type: 'RequestRefund', terms: termsOf(step.refundId, reservation.amount, Date.parse(reservation.reservedAt)) } };
    }
    case 'complete':
      return { to: 'refund', refundId: step.refundId, command: { type: 'CompleteRefund', refundId: step.refundId, outcome: step.outcome, now } };
    case 'settle': {
      const refund = refunds[step.refundId];
      if (refund.status !== 'succeeded' && refund.status !== 'failed') return null; // settled only once the refund's outcome is known
      return { to: 'payment', command: { type: 'SettleRefund', paymentId, refundId: step.refundId, refunded: refund.status === 'succeeded' } };
    }
  }
};

const succeededPayment = (amount: number, feeAmount: number): { state: Payment; events: PaymentEvent[] } => {
  const now = new Date(t0Ms);
  const commands: PaymentCommand[] = [
    {
      type: 'CreatePayment',
      terms: {
        paymentId,
        integratorId: 'int_1',
        amount,
        currency: 'DZD',
        orderReference: 'order-1',
        merchantConnection: 'conn_1',
        returnUrl: 'https://shop.example/return',
        authorizationUrl: `http://localhost:3000/hosted/payments/${paymentId}`,
      },
      expiresAt: new Date(t0Ms + 30 * 60_000),
      now,
    },
    { type: 'StartAuthorization', paymentId, customerId: 'cus_1', customerCurrency: 'DZD', now },
    { type: 'CompleteAuthorization', paymentId, outcome: { status: 'completed', entryId: 'je_p', feeAmount, netAmount: amount - feeAmount }, now },
  ];
  let state = paymentDecider.initialState;
  const events: PaymentEvent[] = [];
  for (const command of commands) {
    const decided = paymentDecider.decide(command, state);
    events.push(...decided);
    state = decided.reduce(paymentDecider.evolve, state);
  }
  expect(state.status).toBe('succeeded');
  return { state, events };
};

const runProcess = (amount: number, feeAmount: number, plan: { step: Step; tick: Tick }[]) => {
  const paid = succeededPayment(amount, feeAmount);
  let payment = paid.state;
  let paymentEvents = paid.events;
  const refunds = Object.fromEntries(refundIds.map((id) => [id, refundDecider.initialState])) as Record<RefundId, Refund>;
  const refundEvents = Object.fromEntries(refundIds.map((id) => [id, [] as RefundEvent[]])) as Record<RefundId, RefundEvent[]>;
  let model: ProcessModel = { amount, amountRefunded: 0, reserved: {}, settled: [], refunds: { re_1: noRefund, re_2: noRefund, re_3: noRefund } };
  let nowMs = t0Ms;
  let previous: Routed | null = null;
  const history: Routed[] = [];

  for (const { step, tick } of plan) {
    let routed: Routed | null;
    if (step.type === 'repeat') {
      routed = previous;
    } else {
      nowMs = advanceClock(nowMs, tick, null);
      routed = toCommand(step, payment, refunds, model, nowMs);
    }
    if (!routed) continue;
    previous = routed;
    history.push(routed);
    const context = () => `commands:\n  ${history.map((r) => JSON.stringify(r)).join('\n  ')}\n  model before the last: ${JSON.stringify(model)}`;

    if (routed.to === 'payment') {
      const { command } = routed;
      const verdict = expectedOfPayment(model, command);
      const result = attempt(() => paymentDecider.decide(command, payment));
      checkVerdict(verdict, result, context);
      if (result.ok) {
        payment = deepFreeze(deepFreeze(result.events).reduce(paymentDecider.evolve, payment));
        paymentEvents = [...paymentEvents, ...result.events];
      }
      if (verdict.kind === 'accept') model = verdict.next;
      expectDeterministicFold(paymentDecider.evolve, paymentDecider.initialState, paymentEvents, payment);
    } else {
      const { refundId, command } = routed;
      const verdict = expectedOfRefund(model.refunds[refundId], command);
      const before = refunds[refundId];
      const result = attempt(() => refundDecider.decide(command, before));
      checkVerdict(verdict, result, context);
      if (result.ok) {
        refunds[refundId] = deepFreeze(deepFreeze(result.events).reduce(refundDecider.evolve, before));
        refundEvents[refundId] = [...refundEvents[refundId], ...result.events];
      }
      if (verdict.kind === 'accept') model = { ...model, refunds: { ...model.refunds, [refundId]: verdict.next } };
      checkRefundStep(model.refunds[refundId], before, refunds[refundId]);
      expectDeterministicFold(refundDecider.evolve, refundDecider.initialState, refundEvents[refundId], refunds[refundId]);
    }

    // The payment agrees with the model: what is refunded, what is held, by which refunds.
    if (payment.status !== 'succeeded') throw new Error(`the payment left succeeded: ${payment.status}`);
    expect(payment.amountRefunded ?? 0).toBe(model.amountRefunded);
    expectEqual(Object.fromEntries(Object.entries(payment.pendingRefunds ?? {}).map(([id, r]) => [id, r.amount])), model.reserved);
    // A refund opened from a reservation carries the reserved amount.
    for (const id of refundIds) {
      const refund = refunds[id];
      const reserved = payment.pendingRefunds?.[id];
      if (refund.status !== 'none' && reserved) expect(refund.terms.amount).toBe(reserved.amount);
    }
    // Money: the payment's amount_refunded is what the succeeded, settled refunds moved; what the ledger moved
    // for refunds (every succeeded refund) and what is still held never exceed the payment's amount.
    const succeeded = refundIds.filter((id) => refunds[id].status === 'succeeded');
    const amountOf = (id: RefundId) => model.refunds[id].amount ?? 0;
    const sum = (ids: RefundId[]) => ids.reduce((total, id) => total + amountOf(id), 0);
    expect(payment.amountRefunded ?? 0).toBe(sum(succeeded.filter((id) => model.settled.includes(id))));
    expect(sum(succeeded)).toBeLessThanOrEqual(amount);
    expect(refundableAmount(payment)).toBeGreaterThanOrEqual(0);
    expect(refundableAmount(payment)).toBe(refundable(model));
  }
};

const steps: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('reserve' as const),
      refundId: fc.constantFrom(...refundIds),
      amount: fc.oneof(fc.constant(null), fc.record({ basisPoints: fc.oneof(fc.constantFrom(0, 5_000, 10_000), fc.integer({ min: 0, max: 10_000 })), plus: fc.constantFrom(-1, 0, 0, 1) })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('open' as const), refundId: fc.constantFrom(...refundIds) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('complete' as const), refundId: fc.constantFrom(...refundIds), outcome: outcomes }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('settle' as const), refundId: fc.constantFrom(...refundIds) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'repeat' as const }) },
);

describe('refunds against a model of the contract (§14)', () => {
  it('the refund aggregate alone: requested once with its terms kept, then succeeded or failed once, whatever the order of commands', () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            command: fc.oneof(
              fc.record({ type: fc.constant('request' as const), amount: fc.integer({ min: 1, max: 1_000_000 }) }),
              fc.record({ type: fc.constant('complete' as const), outcome: outcomes }),
            ),
            tick: ticks,
          }),
          { maxLength: 12, size: 'max' },
        ),
        (plan) => {
          let model = noRefund;
          let state: Refund = refundDecider.initialState;
          let events: RefundEvent[] = [];
          let nowMs = t0Ms;
          for (const { command: step, tick } of plan) {
            nowMs = advanceClock(nowMs, tick, null);
            const command: RefundCommand =
              step.type === 'request'
                ? { type: 'RequestRefund', terms: termsOf('re_1', step.amount, nowMs) }
                : { type: 'CompleteRefund', refundId: 're_1', outcome: step.outcome, now: new Date(nowMs) };
            const verdict = expectedOfRefund(model, command);
            const result = attempt(() => refundDecider.decide(command, state));
            checkVerdict(verdict, result, () => `${JSON.stringify(plan)}\n  model ${JSON.stringify(model)}`);
            const before = state;
            if (result.ok) {
              state = deepFreeze(deepFreeze(result.events).reduce(refundDecider.evolve, state));
              events = [...events, ...result.events];
            }
            if (verdict.kind === 'accept') model = verdict.next;
            checkRefundStep(model, before, state);
            expectDeterministicFold(refundDecider.evolve, refundDecider.initialState, events, state);
          }
        },
      ),
      { numRuns: 300 },
    ));

  it('the process in any order of its steps, retried and replayed: amount_refunded is what succeeded refunds moved, never more than the amount', () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }).chain((amount) => fc.tuple(fc.constant(amount), fc.integer({ min: 0, max: amount }))),
        fc.array(fc.record({ step: steps, tick: ticks }), { maxLength: 40, size: 'max' }),
        ([amount, feeAmount], plan) => runProcess(amount, feeAmount, plan),
      ),
      { numRuns: 300 },
    ));
});
