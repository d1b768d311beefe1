import fc from 'fast-check';
import { CURRENCIES, type Currency } from '@pay/kernel';
import { advanceClock, attempt, checkVerdict, DAY_MS, deepFreeze, expectDeterministicFold, expectEqual, isNonNegativeInteger, ticks, type Tick, type Verdict } from '@pay/testing';
import {
  collectionDecider,
  depositOperationId,
  handoverOperationId,
  toCollectionResource,
  writeOffOperationId,
  type CashCustody,
  type CashMovement,
  type Collection,
  type CollectionCommand,
  type CollectionEvent,
} from './index';

/**
 * Model-based test of the collection decider. The model is the specification's state table for a
 * collection and its `deposit` / `settlement` fields (payments-service.md, contract §4: the status
 * after the handover, an exact deposit settles, any other amount goes under review with no credit,
 * `deposit.overdue`), written without reading the decider. Two parts come from the domain's own
 * documented design, since the specification leaves them to it: the back office's resolution of a
 * deposit under review, and where the cash sits between custody accounts (the ledger's
 * cash in transit of contract §10), whose movements the ledger records before the settlement.
 */

type Status = 'none' | 'awaiting_collection' | 'collected_awaiting_deposit' | 'deposit_under_review' | 'settled';

interface Movement {
  operationId: string;
  from: CashCustody;
  to: CashCustody;
  amount: number;
}

interface Model {
  status: Status;
  amount: number;
  currency: Currency;
  cashPoint: string | null;
  collectedAtMs: number | null;
  dueAtMs: number | null;
  /** The last count recorded (what the cash point holds), or null: shown as `deposit.amount_received`. */
  amountReceived: number | null;
  counts: number;
  /** A deposit validated (or accepted) whose credit is not recorded yet: not visible outside until settled. */
  settling: { gross: number; validatedAtMs: number } | null;
  overdueNotified: boolean;
  settlement: { gross: number; fee: number; net: number; settledAtMs: number } | null;
  /** Cash movements decided and not yet recorded by the ledger, and every movement decided so far. */
  pending: Movement[];
  decided: Movement[];
}

const none: Model = {
  status: 'none',
  amount: 0,
  currency: 'DZD',
  cashPoint: null,
  collectedAtMs: null,
  dueAtMs: null,
  amountReceived: null,
  counts: 0,
  settling: null,
  overdueNotified: false,
  settlement: null,
  pending: [],
  decided: [],
};

type AmountAsked = { kind: 'near_expected'; plus: -1 | 0 | 1 } | { kind: 'share'; basisPoints: number } | { kind: 'zero' } | { kind: 'malformed'; value: number };
type Step =
  | { type: 'create'; amount: number; currency: Currency }
  | { type: 'handover'; cashPoint: string | null }
  | { type: 'validate'; amount: AmountAsked }
  | { type: 'resolve'; resolution: { type: 'accept_received' } | { type: 'correct'; amount: AmountAsked } }
  /** The ledger reports a cash movement done: the first or last one pending, one recorded already (a replay), or an unknown one. */
  | { type: 'record'; pick: 'first' | 'last' | 'recorded' | 'unknown' }
  | { type: 'overdue' }
  | { type: 'complete'; feeBasisPoints: number; split: 'exact' | 'off_by_one' | 'negative_fee' }
  | { type: 'repeat' };

const collectionId = 'col_model000000000000000001';
const t0Ms = Date.parse('2026-11-22T10:00:00.000Z');

// ---- the model ----------------------------------------------------------------------------------

const invalidStatus: Verdict<Model> = { kind: 'refuse', code: 'invalid_status' };
const inDepositStage = (model: Model) => model.status === 'collected_awaiting_deposit' || model.status === 'deposit_under_review';
const isValidCount = (amount: number) => Number.isSafeInteger(amount) && amount >= 0;
const move = (model: Model, movements: Movement[]): Pick<Model, 'pending' | 'decided'> => ({ pending: [...model.pending, ...movements], decided: [...model.decided, ...movements] });

/**
 * A count of the deposit: the cash point then holds what was counted, so the count moves the change
 * since the previous count between cash in transit and the cash point. The exact amount settles (on
 * time or late); any other amount is (or stays) under review, with no credit.
 */
const count = (model: Model, received: number, nowMs: number): Verdict<Model> => {
  const change = received - (model.amountReceived ?? 0);
  const counts = model.counts + 1;
  const operationId = depositOperationId(collectionId, counts);
  const movements: Movement[] =
    change === 0 ? [] : [change > 0 ? { operationId, from: 'in_transit', to: 'cash_point', amount: change } : { operationId, from: 'cash_point', to: 'in_transit', amount: -change }];
  if (received !== model.amount) return { kind: 'accept', next: { ...model, status: 'deposit_under_review', amountReceived: received, counts, ...move(model, movements) } };
  return { kind: 'accept', next: { ...model, counts, settling: { gross: received, validatedAtMs: nowMs }, ...move(model, movements) } };
};

const expected = (model: Model, command: CollectionCommand): Verdict<Model> => {
  const nowMs = command.now.getTime();
  if (command.type === 'CreateCollection') {
    if (model.status !== 'none') return { kind: 'noop' }; // a retried create: the same collection
    return { kind: 'accept', next: { ...none, status: 'awaiting_collection', amount: command.terms.amount, currency: command.terms.currency } };
  }
  if (model.status === 'none') return { kind: 'unchanged' }; // unknown id: answered 404 before deciding
  switch (command.type) {
    case 'ConfirmHandover': {
      if (model.status !== 'awaiting_collection') return invalidStatus;
      if (command.cashPoint === null) return { kind: 'unchanged' }; // no cash point to deposit at: nothing recorded
      const handover: Movement = { operationId: handoverOperationId(collectionId), from: 'cash', to: 'in_transit', amount: model.amount };
      return {
        kind: 'accept',
        next: { ...model, status: 'collected_awaiting_deposit', cashPoint: command.cashPoint, collectedAtMs: nowMs, dueAtMs: nowMs + DAY_MS, ...move(model, [handover]) },
      };
    }
    case 'ValidateDeposit': {
      const stageOk = inDepositStage(model) && model.settling === null;
      const amountOk = isValidCount(command.amountReceived);
      if (!stageOk) return { kind: 'refuse', code: amountOk ? 'invalid_status' : ['invalid_status', 'invalid_amount'] }; // which check comes first: not specified
      if (!amountOk) return { kind: 'refuse', code: 'invalid_amount' };
      return count(model, command.amountReceived, nowMs);
    }
    case 'ResolveDeposit': {
      if (model.status !== 'deposit_under_review' || model.settling !== null) return invalidStatus;
      const { resolution } = command;
      if (resolution.type === 'correct') return isValidCount(resolution.amountReceived) ? count(model, resolution.amountReceived, nowMs) : { kind: 'refuse', code: 'invalid_amount' };
      const received = model.amountReceived ?? 0;
      if (received === 0) return { kind: 'unchanged' }; // nothing reached the cash point: nothing to accept
      // Accepted as the settled gross; the difference with the collected amount is written off between in transit and the platform's cash.
      const difference = model.amount - received;
      const operationId = writeOffOperationId(collectionId);
      const writeOff: Movement =
        difference > 0 ? { operationId, from: 'in_transit', to: 'cash', amount: difference } : { operationId, from: 'cash', to: 'in_transit', amount: -difference };
      return { kind: 'accept', next: { ...model, settling: { gross: received, validatedAtMs: nowMs }, ...move(model, [writeOff]) } };
    }
    case 'RecordCashMovement':
      if (!inDepositStage(model) || !model.pending.some((m) => m.operationId === command.operationId)) return { kind: 'noop' }; // a replay, or unknown
      return { kind: 'accept', next: { ...model, pending: model.pending.filter((m) => m.operationId !== command.operationId) } };
    case 'MarkDepositOverdue':
      // Overdue while the clock is past due_at (at due_at exactly: not yet) and no deposit is validated; reported once.
      if (!inDepositStage(model) || model.settling !== null || model.overdueNotified || nowMs <= (model.dueAtMs ?? Infinity)) return { kind: 'noop' };
      return { kind: 'accept', next: { ...model, overdueNotified: true } };
    case 'CompleteSettlement': {
      if (!inDepositStage(model)) return { kind: 'unchanged' }; // not collected, or settled already (a replay)
      if (model.settling === null || model.pending.length > 0) return { kind: 'unchanged' }; // no deposit validated, or its cash not yet at the cash point
      const { feeAmount: fee, netAmount: net } = command.outcome;
      const { gross } = model.settling;
      if (!isNonNegativeInteger(fee) || !isNonNegativeInteger(net) || fee + net !== gross) return { kind: 'unchanged' };
      // settlement.settled_at is the ledger credit's time and equals deposit.validated_at; amount_received is what was settled.
      return { kind: 'accept', next: { ...model, status: 'settled', amountReceived: gross, settlement: { gross, fee, net, settledAtMs: Date.parse(command.outcome.createdAt) } } };
    }
  }
};

/** The collection as the API must show it at `nowMs`, from the model. */
const expectedResource = (model: Model, nowMs: number) => {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const settled = model.settlement;
  return {
    status: model.status,
    amount: model.amount,
    currency: model.currency,
    collected_at: iso(model.collectedAtMs),
    deposit:
      model.status === 'awaiting_collection'
        ? null
        : {
            point: model.cashPoint,
            due_at: iso(model.dueAtMs),
            overdue: settled === null && nowMs > (model.dueAtMs ?? Infinity),
            deposited_late: settled !== null && settled.settledAtMs > (model.dueAtMs ?? Infinity),
            amount_expected: model.amount,
            amount_received: model.amountReceived,
            validated_at: iso(settled?.settledAtMs ?? null),
          },
    settlement: settled && { gross_amount: settled.gross, fee_amount: settled.fee, net_amount: settled.net, currency: model.currency, settled_at: iso(settled.settledAtMs) },
  };
};

const observeResource = (state: Exclude<Collection, { status: 'none' }>, nowMs: number) => {
  const { status, amount, currency, collected_at, deposit, settlement } = toCollectionResource(state, new Date(nowMs));
  return { status, amount, currency, collected_at, deposit, settlement };
};

/** What is internal to the decider and the model both: the settlement under way, the movements still to record, overdue reported. */
const observeInternals = (state: Collection) => {
  if (state.status === 'none' || state.status === 'awaiting_collection') return { settling: null, pending: [], overdueNotified: false };
  const settling = state.status === 'settled' ? null : state.settling && { gross: state.settling.amountReceived, validatedAtMs: Date.parse(state.settling.validatedAt) };
  const pending = state.deposit.pendingMovements.map(({ operationId, from, to, amount }) => ({ operationId, from, to, amount }));
  return { settling, pending, overdueNotified: state.deposit.overdueNotified };
};
const modelInternals = (model: Model) => ({ settling: model.status === 'settled' ? null : model.settling, pending: model.pending, overdueNotified: model.overdueNotified });

/** Every cash movement the decider decided, read from its events. */
const movementsOf = (events: CollectionEvent[]): CashMovement[] =>
  events.flatMap((event) => {
    switch (event.type) {
      case 'CollectionCollected':
        return [event.movement];
      case 'CollectionDepositUnderReview':
        return event.movement ? [event.movement] : [];
      case 'CollectionSettlementStarted':
        return event.movements;
      default:
        return [];
    }
  });

const custodyOf = (movements: readonly { from: CashCustody; to: CashCustody; amount: number }[]) => {
  const balances: Record<CashCustody, number> = { cash: 0, in_transit: 0, cash_point: 0 };
  for (const { from, to, amount } of movements) {
    balances[from] -= amount;
    balances[to] += amount;
  }
  return balances;
};

// ---- commands ---------------------------------------------------------------------------------

const amountsAsked: fc.Arbitrary<AmountAsked> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('near_expected' as const), plus: fc.constantFrom<-1 | 0 | 1>(0, 0, 0, -1, 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('share' as const), basisPoints: fc.integer({ min: 0, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'zero' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('malformed' as const), value: fc.constantFrom(-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY) }) },
);

const steps: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ type: fc.constant('create' as const), amount: fc.integer({ min: 1, max: 100_000_000_000 }), currency: fc.constantFrom(...CURRENCIES) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('handover' as const), cashPoint: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('cp_1', 'cp_2') }, { weight: 1, arbitrary: fc.constant(null) }) }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('validate' as const), amount: amountsAsked }) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('resolve' as const),
      resolution: fc.oneof(fc.constant({ type: 'accept_received' as const }), fc.record({ type: fc.constant('correct' as const), amount: amountsAsked })),
    }),
  },
  { weight: 5, arbitrary: fc.record({ type: fc.constant('record' as const), pick: fc.constantFrom('first' as const, 'first' as const, 'last' as const, 'recorded' as const, 'unknown' as const) }) },
  { weight: 2, arbitrary: fc.constant({ type: 'overdue' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('complete' as const),
      feeBasisPoints: fc.oneof(fc.constantFrom(0, 10_000), fc.integer({ min: 0, max: 10_000 })),
      split: fc.constantFrom('exact' as const, 'exact' as const, 'exact' as const, 'off_by_one' as const, 'negative_fee' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'repeat' as const }) },
);

const amountOf = (asked: AmountAsked, model: Model): number => {
  switch (asked.kind) {
    case 'near_expected':
      return model.amount + asked.plus;
    case 'share':
      return Math.floor((model.amount * asked.basisPoints) / 10_000);
    case 'zero':
      return 0;
    case 'malformed':
      return asked.value;
  }
};

const toCommand = (step: Exclude<Step, { type: 'repeat' }>, model: Model, now: Date): CollectionCommand => {
  switch (step.type) {
    case 'create':
      return {
        type: 'CreateCollection',
        terms: { collectionId, integratorId: 'int_1', amount: step.amount, currency: step.currency, orderReference: 'order-1', beneficiaryConnection: 'conn_wholesaler' },
        now,
      };
    case 'handover':
      return { type: 'ConfirmHandover', collectionId, cashPoint: step.cashPoint, now };
    case 'validate':
      return { type: 'ValidateDeposit', collectionId, amountReceived: amountOf(step.amount, model), now };
    case 'resolve': {
      const { resolution } = step;
      return {
        type: 'ResolveDeposit',
        collectionId,
        resolution: resolution.type === 'accept_received' ? resolution : { type: 'correct', amountReceived: amountOf(resolution.amount, model) },
        now,
      };
    }
    case 'record': {
      const recorded = model.decided.filter((m) => !model.pending.includes(m));
      const chosen =
        step.pick === 'first' ? model.pending[0] : step.pick === 'last' ? model.pending[model.pending.length - 1] : step.pick === 'recorded' ? recorded[recorded.length - 1] : undefined;
      const operationId = chosen?.operationId ?? `collection-deposit:${collectionId}:999`;
      return { type: 'RecordCashMovement', collectionId, operationId, ledgerEntryId: `je_${operationId}`, now };
    }
    case 'overdue':
      return { type: 'MarkDepositOverdue', collectionId, now };
    case 'complete': {
      const gross = model.settling?.gross ?? model.amount;
      const fee = Math.floor((gross * step.feeBasisPoints) / 10_000);
      const [feeAmount, netAmount] = step.split === 'exact' ? [fee, gross - fee] : step.split === 'off_by_one' ? [fee, gross - fee + 1] : [-(fee + 1), gross + fee + 1];
      return { type: 'CompleteSettlement', collectionId, outcome: { entryId: 'je_settlement', feeAmount, netAmount, createdAt: now.toISOString() }, now };
    }
  }
};

// ---- the run ------------------------------------------------------------------------------------

const run = (plan: { step: Step; tick: Tick }[]) => {
  let model = none;
  let state: Collection = collectionDecider.initialState;
  let events: CollectionEvent[] = [];
  let nowMs = t0Ms;
  let previous: CollectionCommand | null = null;
  const history: CollectionCommand[] = [];

  for (const { step, tick } of plan) {
    let command: CollectionCommand;
    if (step.type === 'repeat') {
      if (!previous) continue;
      command = previous;
    } else {
      nowMs = advanceClock(nowMs, tick, model.dueAtMs);
      command = toCommand(step, model, new Date(nowMs));
    }
    previous = command;
    history.push(command);
    const verdict = expected(model, command);
    const result = attempt(() => collectionDecider.decide(command, state));
    checkVerdict(verdict, result, () => `commands:\n  ${history.map((c) => JSON.stringify(c)).join('\n  ')}\n  model before the last: ${JSON.stringify(model)}`);

    const before = state;
    if (result.ok) {
      state = deepFreeze(deepFreeze(result.events).reduce(collectionDecider.evolve, state));
      events = [...events, ...result.events];
    }
    if (verdict.kind === 'accept') model = verdict.next;

    // The decider's state agrees with the model: the resource at this time, and what is under way inside.
    expect(state.status).toBe(model.status);
    if (state.status !== 'none') expectEqual(observeResource(state, nowMs), expectedResource(model, nowMs));
    expectEqual(observeInternals(state), modelInternals(model));
    expectDeterministicFold(collectionDecider.evolve, collectionDecider.initialState, events, state);
    if (before.status === 'settled') expectEqual(state, before);
    if (before.status !== 'none' && state.status !== 'none') expectEqual(state.terms, before.terms);

    // Money: the cash moves between custody accounts only (nothing created or lost); every movement is a positive
    // integer; between the handover and an accepted difference, the carrier and the cash point hold the collected
    // amount; the cash point holds the last count; a settlement credits exactly what the cash point holds.
    const movements = movementsOf(events);
    expectEqual(movements.map(({ kind: _kind, ...movement }) => movement), model.decided);
    expect(movements.every((m) => Number.isSafeInteger(m.amount) && m.amount > 0)).toBe(true);
    const custody = custodyOf(movements);
    expect(custody.cash + custody.in_transit + custody.cash_point).toBe(0);
    if (state.status === 'none' || state.status === 'awaiting_collection') {
      expectEqual(custody, { cash: 0, in_transit: 0, cash_point: 0 });
      continue;
    }
    const settlingOrSettled = state.status === 'settled' ? state.validation : state.settling;
    if (settlingOrSettled === null) {
      expect(custody.in_transit + custody.cash_point).toBe(state.terms.amount);
      expect(custody.cash_point).toBe(state.deposit.amountReceived ?? 0);
    } else {
      expectEqual(custody, { cash: -settlingOrSettled.amountReceived, in_transit: 0, cash_point: settlingOrSettled.amountReceived });
    }
    if (state.status === 'settled') {
      const { grossAmount, feeAmount, netAmount, settledAt } = state.settlement;
      expect(isNonNegativeInteger(feeAmount) && isNonNegativeInteger(netAmount)).toBe(true);
      expect(feeAmount + netAmount).toBe(grossAmount);
      expect(grossAmount).toBe(state.validation.amountReceived);
      expect(settledAt).toBe(state.validation.validatedAt);
      expectEqual(state.deposit.pendingMovements, []);
    }
  }
};

const plans = fc.array(fc.record({ step: steps, tick: ticks }), { maxLength: 35, size: 'max' });
/** Toward the end of the process: the ledger recording what is pending, the settlement completing. */
const ledgerSteps: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ type: 'record' as const, pick: 'first' as const }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('complete' as const), feeBasisPoints: fc.integer({ min: 0, max: 10_000 }), split: fc.constant('exact' as const) }) },
);
const settlingPlans = fc.array(fc.record({ step: fc.oneof({ weight: 3, arbitrary: steps }, { weight: 2, arbitrary: ledgerSteps }), tick: ticks }), { maxLength: 35, size: 'max' });
const creates = fc.record({ type: fc.constant('create' as const), amount: fc.integer({ min: 1, max: 10_000_000 }), currency: fc.constantFrom(...CURRENCIES) });
const same: Tick = { kind: 'same' };

describe('collection decider against a model of the specification', () => {
  it('any sequence of commands, at any time: the state agrees with the state table, refusals are refused, cash is conserved', () =>
    fc.assert(
      fc.property(fc.option(creates, { freq: 6 }), plans, (create, plan) => {
        run(create ? [{ step: create, tick: same }, ...plan] : plan);
      }),
      { numRuns: 250 },
    ));

  it('from the handover, any sequence of counts, resolutions, recordings and sweeps, on time or late: settled once, with what the cash point holds', () =>
    fc.assert(
      fc.property(creates, settlingPlans, (create, plan) => {
        run([{ step: create, tick: same }, { step: { type: 'handover', cashPoint: 'cp_1' }, tick: { kind: 'after', ms: 1 } }, ...plan]);
      }),
      { numRuns: 250 },
    ));
});
