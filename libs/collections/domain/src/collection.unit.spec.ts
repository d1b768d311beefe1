import { deciderSpec } from '@pay/testing';
import {
  collectionDecider,
  depositOperationId,
  handoverOperationId,
  settlementOperationId,
  toCollectionResource,
  writeOffOperationId,
  type CashMovement,
  type Collection,
  type CollectionEvent,
  type CollectionTerms,
  type DepositSource,
} from './index';

const collectionId = 'col_000000000000000000000001';
const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const HOUR = 3_600_000;
const collectedAt = at(HOUR);
const dueAt = at(25 * HOUR);
const terms: Omit<CollectionTerms, 'createdAt'> = {
  collectionId,
  integratorId: 'int_1',
  amount: 1_250_000,
  currency: 'DZD',
  orderReference: 'order-1',
  beneficiaryConnection: 'conn_wholesaler',
};
const created: CollectionEvent = { type: 'CollectionCreated', ...terms, createdAt: t0.toISOString() };
const handoverMovement: CashMovement = { operationId: handoverOperationId(collectionId), kind: 'cash_handover', from: 'cash', to: 'in_transit', amount: 1_250_000 };
const collected: CollectionEvent = {
  type: 'CollectionCollected',
  collectionId,
  cashPoint: 'cp_1',
  collectedAt: collectedAt.toISOString(),
  dueAt: dueAt.toISOString(),
  movement: handoverMovement,
};
/** The n-th count moving `change` (positive: in transit to the cash point; negative: back). */
const depositMovement = (count: number, change: number): CashMovement | null =>
  change === 0
    ? null
    : {
        operationId: depositOperationId(collectionId, count),
        kind: 'cash_deposit',
        ...(change > 0 ? { from: 'in_transit', to: 'cash_point', amount: change } : { from: 'cash_point', to: 'in_transit', amount: -change }),
      };
const exactDeposit = depositMovement(1, 1_250_000)!;
const moved = (movement: CashMovement): CollectionEvent => ({ type: 'CollectionCashMoved', collectionId, operationId: movement.operationId, ledgerEntryId: `je_${movement.operationId}` });
const handedOver = [created, collected, moved(handoverMovement)];
const underReview = (amountReceived: number, when = at(2 * HOUR), movement: CashMovement | null = depositMovement(1, amountReceived), source: DepositSource = 'cash_agent'): CollectionEvent => ({
  type: 'CollectionDepositUnderReview',
  collectionId,
  amountReceived,
  reviewedAt: when.toISOString(),
  source,
  movement,
});
const started = (when = at(2 * HOUR), movements: CashMovement[] = [exactDeposit], source: DepositSource = 'cash_agent', amountReceived = 1_250_000): CollectionEvent => ({
  type: 'CollectionSettlementStarted',
  collectionId,
  amountReceived,
  validatedAt: when.toISOString(),
  operationId: settlementOperationId(collectionId),
  source,
  movements,
});
/** The ledger dates the credit after the validation request (its own clock, once the accounts are locked). */
const CREDIT_DELAY_MS = 40;
const outcome = { entryId: 'je_1', feeAmount: 31_250, netAmount: 1_218_750, createdAt: at(2 * HOUR + CREDIT_DELAY_MS).toISOString() };
const settled = (when = at(2 * HOUR)): CollectionEvent => ({
  type: 'CollectionSettled',
  collectionId,
  grossAmount: 1_250_000,
  feeAmount: 31_250,
  netAmount: 1_218_750,
  ledgerEntryId: 'je_1',
  settledAt: when.toISOString(),
});

const spec = deciderSpec(collectionDecider);
const fold = (events: CollectionEvent[]): Exclude<Collection, { status: 'none' }> => {
  const state = events.reduce(collectionDecider.evolve, collectionDecider.initialState);
  if (state.status === 'none') throw new Error('no collection');
  return state;
};

describe('collection decider', () => {
  describe('create collection', () => {
    it('request valid: awaiting_collection', () => spec.given([]).when({ type: 'CreateCollection', terms, now: t0 }).then([created]));
    it('the same collection id again decides nothing (a retried create)', () =>
      spec.given([created]).when({ type: 'CreateCollection', terms, now: at(5) }).then([]));
  });

  describe('recipient confirms cash handover', () => {
    it('awaiting_collection: collected, at the assigned cash point, due_at = collected_at + 24 h exactly', () =>
      spec.given([created]).when({ type: 'ConfirmHandover', collectionId, cashPoint: 'cp_1', now: collectedAt }).then([collected]));

    it('confirmed by a carrier in the agents’ application: the carrier is recorded with the collection', () =>
      spec
        .given([created])
        .when({ type: 'ConfirmHandover', collectionId, cashPoint: 'cp_1', now: collectedAt, carrier: 'agt_1' })
        .then([{ ...collected, carrier: 'agt_1' }]));

    it('no cash point registered: invalid_status, nothing recorded', () =>
      spec.given([created]).when({ type: 'ConfirmHandover', collectionId, cashPoint: null, now: collectedAt }).thenFails('invalid_status'));

    it.each<[string, CollectionEvent[]]>([
      ['collected_awaiting_deposit', [created, collected]],
      ['deposit_under_review', [created, collected, underReview(1)]],
      ['settled', [created, collected, started(), settled()]],
    ])('on a %s collection: invalid_status', (_status, history) =>
      spec.given(history).when({ type: 'ConfirmHandover', collectionId, cashPoint: 'cp_1', now: at(3 * HOUR) }).thenFails('invalid_status'));
  });

  describe('cash agent validates the deposit', () => {
    it('amount_received equal to amount_expected: the settlement starts under the collection operation id', () =>
      spec.given([created, collected]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(2 * HOUR) }).then([started()]));

    it.each([
      ['a short deposit', 1_000_000],
      ['an over deposit', 1_300_000],
      ['an empty deposit (0)', 0],
    ])('%s: deposit_under_review with amount_received recorded, no settlement', (_case, amountReceived) =>
      spec.given([created, collected]).when({ type: 'ValidateDeposit', collectionId, amountReceived, now: at(2 * HOUR) }).then([underReview(amountReceived)]));

    it('from deposit_under_review, the exact amount settles; the second count moves only what it adds to the cash point', () =>
      spec
        .given([created, collected, underReview(1_000_000)])
        .when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(3 * HOUR) })
        .then([started(at(3 * HOUR), [depositMovement(2, 250_000)!])]));

    it('from deposit_under_review, another wrong amount is recorded as the new count; a lower count moves cash back to in transit', () =>
      spec
        .given([created, collected, underReview(1_000_000)])
        .when({ type: 'ValidateDeposit', collectionId, amountReceived: 900_000, now: at(3 * HOUR) })
        .then([underReview(900_000, at(3 * HOUR), depositMovement(2, -100_000))]));

    it('the same wrong count again: under review, no cash movement', () =>
      spec
        .given([created, collected, underReview(1_000_000)])
        .when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_000_000, now: at(3 * HOUR) })
        .then([underReview(1_000_000, at(3 * HOUR), null)]));

    it('an empty deposit (0) moves nothing', () =>
      spec.given([created, collected]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 0, now: at(2 * HOUR) }).then([underReview(0, at(2 * HOUR), null)]));

    it('validated while the handover movement is not recorded yet: decided all the same, the movements queue in order', () => {
      const state = fold([created, collected, underReview(1_000_000)]);
      if (state.status !== 'deposit_under_review') throw new Error(state.status);
      expect(state.deposit.pendingMovements.map((m) => m.operationId)).toEqual([handoverOperationId(collectionId), depositOperationId(collectionId, 1)]);
    });

    it('before the handover: invalid_status', () =>
      spec.given([created]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(2 * HOUR) }).thenFails('invalid_status'));

    it('after settled: invalid_status', () =>
      spec.given([created, collected, started(), settled()]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(3 * HOUR) }).thenFails('invalid_status'));

    it('while a settlement is under way: invalid_status (money may be moving)', () =>
      spec.given([created, collected, started()]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(3 * HOUR) }).thenFails('invalid_status'));

    it.each([-1, 1.5, Number.NaN])('amount_received %p: invalid_amount', (amountReceived) =>
      spec.given([created, collected]).when({ type: 'ValidateDeposit', collectionId, amountReceived, now: at(2 * HOUR) }).thenFails('invalid_amount'));
  });

  describe('settlement completes', () => {
    it("records gross, fee and net once the cash movements before it are recorded; settled_at is the ledger credit's time", () =>
      spec
        .given([...handedOver, started(), moved(exactDeposit)])
        .when({ type: 'CompleteSettlement', collectionId, outcome, now: at(2 * HOUR + 50) })
        .then([settled(at(2 * HOUR + CREDIT_DELAY_MS))]));

    it('once settled, deposit.validated_at is settled_at (the credit), not the validation request; deposited_late is judged on it', () => {
      const state = fold([...handedOver, started(at(25 * HOUR - 10)), moved(exactDeposit), settled(at(25 * HOUR + 30))]);
      const resource = toCollectionResource(state, at(26 * HOUR));
      expect(resource.deposit).toMatchObject({ validated_at: at(25 * HOUR + 30).toISOString(), deposited_late: true });
      expect(resource.settlement!.settled_at).toBe(resource.deposit!.validated_at);
    });

    it('a settlement stored with the validation time as settled_at (before settled_at was the credit) folds as it did', () => {
      const resource = toCollectionResource(fold([...handedOver, started(), moved(exactDeposit), settled(at(2 * HOUR))]), at(3 * HOUR));
      expect(resource.deposit!.validated_at).toBe(at(2 * HOUR).toISOString());
      expect(resource.settlement!.settled_at).toBe(at(2 * HOUR).toISOString());
    });

    it('a cash movement still to be recorded: refused (the cash point must hold the deposit first)', () =>
      expect(() => collectionDecider.decide({ type: 'CompleteSettlement', collectionId, outcome, now: at(2 * HOUR) }, fold([...handedOver, started()]))).toThrow(
        /cash movements are still to be recorded/,
      ));

    it('an outcome recorded already (a replay after a crash) decides nothing', () =>
      spec.given([created, collected, started(), settled()]).when({ type: 'CompleteSettlement', collectionId, outcome, now: at(5 * HOUR) }).then([]));

    it('fee + net different from the gross amount is refused', () =>
      expect(() =>
        collectionDecider.decide(
          { type: 'CompleteSettlement', collectionId, outcome: { ...outcome, feeAmount: 1, netAmount: 1 }, now: at(2 * HOUR) },
          fold([...handedOver, started(), moved(exactDeposit)]),
        ),
      ).toThrow(/not the gross amount/));

    it('no settlement started: refused', () =>
      expect(() => collectionDecider.decide({ type: 'CompleteSettlement', collectionId, outcome, now: at(2 * HOUR) }, fold([created, collected]))).toThrow(/no settlement/));
  });

  describe('cash movements recorded by the ledger', () => {
    it('the handover moves the collected amount from the platform cash to cash in transit, under collection-handover:<id>', () =>
      expect(handoverMovement).toEqual({ operationId: `collection-handover:${collectionId}`, kind: 'cash_handover', from: 'cash', to: 'in_transit', amount: 1_250_000 }));

    it('the deposit counts are numbered: collection-deposit:<id>:<n>', () => expect(depositOperationId(collectionId, 2)).toBe(`collection-deposit:${collectionId}:2`));

    it('a pending movement: recorded with its ledger entry', () =>
      spec
        .given([created, collected])
        .when({ type: 'RecordCashMovement', collectionId, operationId: handoverMovement.operationId, ledgerEntryId: 'je_h', now: at(HOUR + 5) })
        .then([{ type: 'CollectionCashMoved', collectionId, operationId: handoverMovement.operationId, ledgerEntryId: 'je_h' }]));

    it('recorded already (a replay after a crash), or unknown: decides nothing', () => {
      spec.given(handedOver).when({ type: 'RecordCashMovement', collectionId, operationId: handoverMovement.operationId, ledgerEntryId: 'je_h', now: at(2 * HOUR) }).then([]);
      spec.given([created, collected]).when({ type: 'RecordCashMovement', collectionId, operationId: 'collection-deposit:x:9', ledgerEntryId: 'je', now: at(2 * HOUR) }).then([]);
    });
  });

  describe('deadline sweep: the deposit seen overdue', () => {
    const mark = (now: Date) => ({ type: 'MarkDepositOverdue' as const, collectionId, now });
    const overdue = (now: Date): CollectionEvent => ({ type: 'CollectionDepositOverdue', collectionId, detectedAt: now.toISOString() });

    it('past due_at, nothing validated: collection.deposit_overdue decided', () => spec.given(handedOver).when(mark(at(25 * HOUR + 1))).then([overdue(at(25 * HOUR + 1))]));
    it('at due_at exactly: not overdue yet, nothing decided', () => spec.given(handedOver).when(mark(dueAt)).then([]));
    it('under review past due_at: overdue too (no deposit validated)', () =>
      spec.given([...handedOver, underReview(1_000_000)]).when(mark(at(26 * HOUR))).then([overdue(at(26 * HOUR))]));
    it('once per collection: seen overdue again, nothing decided', () =>
      spec.given([...handedOver, overdue(at(25 * HOUR + 1))]).when(mark(at(48 * HOUR))).then([]));
    it('a settlement under way, settled, or not collected yet: nothing decided', () => {
      spec.given([...handedOver, started()]).when(mark(at(30 * HOUR))).then([]);
      spec.given([...handedOver, started(), moved(exactDeposit), settled()]).when(mark(at(30 * HOUR))).then([]);
      spec.given([created]).when(mark(at(30 * HOUR))).then([]);
    });
    it('the resource after it: overdue true, status unchanged; a late validation still settles', () => {
      const state = fold([...handedOver, overdue(at(25 * HOUR + 1))]);
      expect(toCollectionResource(state, at(25 * HOUR + 1))).toMatchObject({ status: 'collected_awaiting_deposit', deposit: { overdue: true } });
      spec.given([...handedOver, overdue(at(25 * HOUR + 1))]).when({ type: 'ValidateDeposit', collectionId, amountReceived: 1_250_000, now: at(26 * HOUR) }).then([started(at(26 * HOUR))]);
    });
  });

  describe('back office resolves a deposit under review', () => {
    const resolve = (resolution: { type: 'accept_received' } | { type: 'correct'; amountReceived: number }, now = at(5 * HOUR)) => ({
      type: 'ResolveDeposit' as const,
      collectionId,
      resolution,
      now,
    });

    it('accept_received of a short deposit: settles with gross = the amount received; the shortfall is written off from in transit to the platform cash', () =>
      spec
        .given([...handedOver, underReview(1_000_000)])
        .when(resolve({ type: 'accept_received' }))
        .then([
          started(
            at(5 * HOUR),
            [{ operationId: writeOffOperationId(collectionId), kind: 'cash_write_off', from: 'in_transit', to: 'cash', amount: 250_000 }],
            'back_office_accept_received',
            1_000_000,
          ),
        ]));

    it('accept_received of an over deposit: the surplus is written off from the platform cash back to in transit (which the over count took below zero)', () =>
      spec
        .given([...handedOver, underReview(1_300_000)])
        .when(resolve({ type: 'accept_received' }))
        .then([
          started(
            at(5 * HOUR),
            [{ operationId: writeOffOperationId(collectionId), kind: 'cash_write_off', from: 'cash', to: 'in_transit', amount: 50_000 }],
            'back_office_accept_received',
            1_300_000,
          ),
        ]));

    it('accept_received when nothing was received (0): invalid_status, there is no amount to settle', () =>
      spec.given([...handedOver, underReview(0, at(2 * HOUR), null)]).when(resolve({ type: 'accept_received' })).thenFails('invalid_status'));

    it('correct with the expected amount: settles as a normal deposit, moving what the correction adds', () =>
      spec
        .given([...handedOver, underReview(1_000_000)])
        .when(resolve({ type: 'correct', amountReceived: 1_250_000 }))
        .then([started(at(5 * HOUR), [depositMovement(2, 250_000)!], 'back_office_correction')]));

    it('correct with another amount: stays under review with the corrected count', () =>
      spec
        .given([...handedOver, underReview(1_000_000)])
        .when(resolve({ type: 'correct', amountReceived: 1_100_000 }))
        .then([underReview(1_100_000, at(5 * HOUR), depositMovement(2, 100_000), 'back_office_correction')]));

    it('correct with a bad amount: invalid_amount', () =>
      spec.given([...handedOver, underReview(1_000_000)]).when(resolve({ type: 'correct', amountReceived: -1 })).thenFails('invalid_amount'));

    it.each<[string, CollectionEvent[]]>([
      ['awaiting_collection', [created]],
      ['collected_awaiting_deposit', handedOver],
      ['settling', [...handedOver, underReview(1_000_000), started(at(3 * HOUR), [depositMovement(2, 250_000)!])]],
      ['settled', [...handedOver, started(), moved(exactDeposit), settled()]],
    ])('a collection %s, not under review: invalid_status', (_status, history) => {
      spec.given(history).when(resolve({ type: 'accept_received' })).thenFails('invalid_status');
      spec.given(history).when(resolve({ type: 'correct', amountReceived: 1_250_000 })).thenFails('invalid_status');
    });

    it('accepted: once settled, the resource shows gross = amount received and the resolution time as validated_at', () => {
      const accepted = started(at(5 * HOUR), [{ operationId: writeOffOperationId(collectionId), kind: 'cash_write_off', from: 'in_transit', to: 'cash', amount: 250_000 }], 'back_office_accept_received', 1_000_000);
      const state = fold([
        ...handedOver,
        underReview(1_000_000),
        moved(depositMovement(1, 1_000_000)!),
        accepted,
        moved({ operationId: writeOffOperationId(collectionId), kind: 'cash_write_off', from: 'in_transit', to: 'cash', amount: 250_000 }),
        { type: 'CollectionSettled', collectionId, grossAmount: 1_000_000, feeAmount: 25_000, netAmount: 975_000, ledgerEntryId: 'je_s', settledAt: at(5 * HOUR).toISOString() },
      ]);
      expect(toCollectionResource(state, at(6 * HOUR))).toMatchObject({
        status: 'settled',
        deposit: { amount_expected: 1_250_000, amount_received: 1_000_000, validated_at: at(5 * HOUR).toISOString(), deposited_late: false },
        settlement: { gross_amount: 1_000_000, fee_amount: 25_000, net_amount: 975_000 },
      });
    });
  });

  describe('resource', () => {
    it('awaiting_collection: collected_at, deposit and settlement null', () =>
      expect(toCollectionResource(fold([created]), t0)).toEqual({
        id: collectionId,
        object: 'collection',
        status: 'awaiting_collection',
        amount: 1_250_000,
        currency: 'DZD',
        order_reference: 'order-1',
        beneficiary_connection: 'conn_wholesaler',
        collected_at: null,
        deposit: null,
        settlement: null,
        created_at: t0.toISOString(),
      }));

    it('collected_awaiting_deposit: deposit populated, amount_expected = amount, nothing received or validated', () =>
      expect(toCollectionResource(fold([created, collected]), at(2 * HOUR))).toMatchObject({
        status: 'collected_awaiting_deposit',
        collected_at: collectedAt.toISOString(),
        deposit: { point: 'cp_1', due_at: dueAt.toISOString(), overdue: false, deposited_late: false, amount_expected: 1_250_000, amount_received: null, validated_at: null },
        settlement: null,
      }));

    it('overdue: false at due_at exactly, true one millisecond after while no deposit is validated', () => {
      const state = fold([created, collected]);
      expect(toCollectionResource(state, dueAt).deposit?.overdue).toBe(false);
      expect(toCollectionResource(state, at(25 * HOUR + 1)).deposit?.overdue).toBe(true);
      expect(toCollectionResource(fold([created, collected, underReview(1)]), at(25 * HOUR + 1)).deposit).toMatchObject({ overdue: true, amount_received: 1, validated_at: null });
    });

    it('a settlement under way is not shown yet: the deposit-stage status stays', () =>
      expect(toCollectionResource(fold([created, collected, started()]), at(2 * HOUR))).toMatchObject({ status: 'collected_awaiting_deposit', settlement: null }));

    it('validated exactly at due_at: on time (deposited_late false)', () => {
      const resource = toCollectionResource(fold([created, collected, started(dueAt), settled(dueAt)]), at(30 * HOUR));
      expect(resource.deposit).toMatchObject({ deposited_late: false, overdue: false, validated_at: dueAt.toISOString(), amount_received: 1_250_000 });
    });

    it('validated one millisecond after due_at: late (deposited_late true), settled all the same', () => {
      const late = at(25 * HOUR + 1);
      const resource = toCollectionResource(fold([created, collected, started(late), settled(late)]), at(30 * HOUR));
      expect(resource.status).toBe('settled');
      expect(resource.deposit).toMatchObject({ deposited_late: true, overdue: false, validated_at: late.toISOString() });
    });

    it('settled: settlement populated, fee + net = gross, settled_at = deposit.validated_at', () => {
      const resource = toCollectionResource(fold([created, collected, started(), settled()]), at(3 * HOUR));
      expect(resource.settlement).toEqual({ gross_amount: 1_250_000, fee_amount: 31_250, net_amount: 1_218_750, currency: 'DZD', settled_at: at(2 * HOUR).toISOString() });
      expect(resource.settlement!.fee_amount + resource.settlement!.net_amount).toBe(resource.settlement!.gross_amount);
      expect(resource.settlement!.settled_at).toBe(resource.deposit!.validated_at);
    });
  });
});
