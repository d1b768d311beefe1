import { ServiceError } from '@pay/contracts';
import { addMs, DAY_MS } from '@pay/kernel';
import { inDepositStage, type CashMovement, type Collection, type CollectionEvent, type CollectionTerms, type DepositSource, type InDepositStage } from './collection';

/** The back office's resolution of a deposit under review. */
export type DepositResolution = { type: 'accept_received' } | { type: 'correct'; amountReceived: number };

/** Commands on a collection. Time, new ids and the assigned cash point arrive on the command: decide stays pure. */
export type CollectionCommand =
  | { type: 'CreateCollection'; terms: Omit<CollectionTerms, 'createdAt'>; now: Date }
  | { type: 'ConfirmHandover'; collectionId: string; cashPoint: string | null; now: Date; carrier?: string }
  | { type: 'ValidateDeposit'; collectionId: string; amountReceived: number; now: Date }
  | { type: 'ResolveDeposit'; collectionId: string; resolution: DepositResolution; now: Date }
  | { type: 'RecordCashMovement'; collectionId: string; operationId: string; ledgerEntryId: string; now: Date }
  | { type: 'MarkDepositOverdue'; collectionId: string; now: Date }
  | { type: 'CompleteSettlement'; collectionId: string; outcome: SettlementOutcome; now: Date };

/** The ledger's answer to a settlement transfer (the cash point's account holds the gross: never rejected when run in order). */
export interface SettlementOutcome {
  entryId: string;
  feeAmount: number;
  netAmount: number;
  /** The ledger entry's time: the credit's, which settled_at and deposit.validated_at show. */
  createdAt: string;
}

/** Contract: `deposit.due_at` = `collected_at` + 24 hours. */
export const DEPOSIT_DEADLINE_MS = DAY_MS;

/** The ledger operation of a collection's settlement: one per collection, so a replay never credits twice. */
export const settlementOperationId = (collectionId: string): string => `collection-settlement:${collectionId}`;
/** The handover: the collected amount from the platform's cash to cash in transit. */
export const handoverOperationId = (collectionId: string): string => `collection-handover:${collectionId}`;
/** The n-th count of the deposit (1, 2, …): what the count changed between cash in transit and the cash point. */
export const depositOperationId = (collectionId: string, count: number): string => `collection-deposit:${collectionId}:${count}`;
/** The difference written off when the back office accepts the received amount. */
export const writeOffOperationId = (collectionId: string): string => `collection-write-off:${collectionId}`;

export const decide = (command: CollectionCommand, state: Collection): CollectionEvent[] => {
  switch (command.type) {
    case 'CreateCollection':
      return create(command, state);
    case 'ConfirmHandover':
      return confirmHandover(command, state);
    case 'ValidateDeposit':
      return validateDeposit(command, state);
    case 'ResolveDeposit':
      return resolveDeposit(command, state);
    case 'RecordCashMovement':
      return recordCashMovement(command, state);
    case 'MarkDepositOverdue':
      return markDepositOverdue(command, state);
    case 'CompleteSettlement':
      return completeSettlement(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown collection command ${JSON.stringify(unknown)}`);
    }
  }
};

const create = (command: Extract<CollectionCommand, { type: 'CreateCollection' }>, state: Collection): CollectionEvent[] => {
  if (state.status !== 'none') return []; // same id again (a retried create): the collection already exists
  return [{ type: 'CollectionCreated', ...command.terms, createdAt: command.now.toISOString() }];
};

/** The recipient hands the cash to the carrier: the deposit at the assigned cash point is due 24 h later. */
const confirmHandover = (command: Extract<CollectionCommand, { type: 'ConfirmHandover' }>, state: Collection): CollectionEvent[] => {
  requireExisting(state);
  if (state.status !== 'awaiting_collection') throw new ServiceError('invalid_status', `the collection is ${state.status}: the cash was handed over already`);
  if (command.cashPoint === null) throw new ServiceError('invalid_status', 'no cash point is registered to receive the deposit: the handover cannot be recorded yet');
  return [
    {
      type: 'CollectionCollected',
      collectionId: state.terms.collectionId,
      cashPoint: command.cashPoint,
      collectedAt: command.now.toISOString(),
      dueAt: addMs(command.now, DEPOSIT_DEADLINE_MS).toISOString(),
      movement: { operationId: handoverOperationId(state.terms.collectionId), kind: 'cash_handover', from: 'cash', to: 'in_transit', amount: state.terms.amount },
      ...(command.carrier ? { carrier: command.carrier } : {}),
    },
  ];
};

/**
 * The cash agent validates the deposit. The exact amount starts the settlement (on time or late);
 * any other amount puts (or keeps) the collection under review, with no credit. From review, a later
 * validation of the exact amount settles; another wrong amount is recorded as the new count.
 */
const validateDeposit = (command: Extract<CollectionCommand, { type: 'ValidateDeposit' }>, state: Collection): CollectionEvent[] =>
  recordCount(requireDepositStage(state), command.amountReceived, command.now, 'cash_agent');

/**
 * The back office resolves a deposit under review: accept the received amount as the settled gross
 * (the difference with the collected amount is written off between cash in transit and the platform's
 * cash), or record a corrected count (the exact amount settles; any other stays under review).
 */
const resolveDeposit = (command: Extract<CollectionCommand, { type: 'ResolveDeposit' }>, state: Collection): CollectionEvent[] => {
  const staged = requireDepositStage(state);
  if (staged.status !== 'deposit_under_review') throw new ServiceError('invalid_status', `the collection is ${staged.status}: only a deposit under review is resolved`);
  const { resolution } = command;
  if (resolution.type === 'correct') return recordCount(staged, resolution.amountReceived, command.now, 'back_office_correction');
  const { collectionId, amount } = staged.terms;
  const received = staged.deposit.amountReceived ?? 0;
  if (received === 0) throw new ServiceError('invalid_status', 'nothing was received at the cash point: there is no amount to accept; record a correction instead');
  const difference = amount - received;
  const writeOff: CashMovement = {
    operationId: writeOffOperationId(collectionId),
    kind: 'cash_write_off',
    // Short: what in transit still holds never arrived. Over: in transit went below zero by the surplus.
    ...(difference > 0 ? { from: 'in_transit', to: 'cash', amount: difference } : { from: 'cash', to: 'in_transit', amount: -difference }),
  };
  return [
    {
      type: 'CollectionSettlementStarted',
      collectionId,
      amountReceived: received,
      validatedAt: command.now.toISOString(),
      operationId: settlementOperationId(collectionId),
      source: 'back_office_accept_received',
      movements: [writeOff],
    },
  ];
};

/**
 * A count of the deposit. The cash point's account then holds the amount counted: the count moves the
 * difference with the previous count between cash in transit and the cash point (nothing when equal).
 */
const recordCount = (staged: InDepositStage, amountReceived: number, now: Date, source: DepositSource): CollectionEvent[] => {
  if (!Number.isSafeInteger(amountReceived) || amountReceived < 0) {
    throw new ServiceError('invalid_amount', 'amount_received must be an integer of 0 or more (minor units)', 'amount_received');
  }
  const { collectionId, amount } = staged.terms;
  const at = now.toISOString();
  const change = amountReceived - (staged.deposit.amountReceived ?? 0);
  const operationId = depositOperationId(collectionId, staged.deposit.counts + 1);
  const movement: CashMovement | null =
    change === 0
      ? null
      : { operationId, kind: 'cash_deposit', ...(change > 0 ? { from: 'in_transit', to: 'cash_point', amount: change } : { from: 'cash_point', to: 'in_transit', amount: -change }) };
  if (amountReceived !== amount) {
    return [{ type: 'CollectionDepositUnderReview', collectionId, amountReceived, reviewedAt: at, source, movement }];
  }
  return [
    {
      type: 'CollectionSettlementStarted',
      collectionId,
      amountReceived,
      validatedAt: at,
      operationId: settlementOperationId(collectionId),
      source,
      movements: movement ? [movement] : [],
    },
  ];
};

/** Records that the ledger made a cash movement. Idempotent: a movement recorded already decides nothing. */
const recordCashMovement = (command: Extract<CollectionCommand, { type: 'RecordCashMovement' }>, state: Collection): CollectionEvent[] => {
  if (!inDepositStage(state) || !state.deposit.pendingMovements.some((m) => m.operationId === command.operationId)) return [];
  return [{ type: 'CollectionCashMoved', collectionId: state.terms.collectionId, operationId: command.operationId, ledgerEntryId: command.ledgerEntryId }];
};

/**
 * The deadline sweep sees the deposit overdue: the service clock is past due_at and no deposit is
 * validated (none settling). Decided once per collection; at due_at exactly it is not overdue yet.
 */
const markDepositOverdue = (command: Extract<CollectionCommand, { type: 'MarkDepositOverdue' }>, state: Collection): CollectionEvent[] => {
  if (!inDepositStage(state) || state.settling || state.deposit.overdueNotified) return [];
  if (command.now.getTime() <= Date.parse(state.deposit.dueAt)) return [];
  return [{ type: 'CollectionDepositOverdue', collectionId: state.terms.collectionId, detectedAt: command.now.toISOString() }];
};

/** Records the ledger's answer. Idempotent: once recorded, a replayed outcome decides nothing. */
const completeSettlement = (command: Extract<CollectionCommand, { type: 'CompleteSettlement' }>, state: Collection): CollectionEvent[] => {
  if (state.status === 'none' || state.status === 'awaiting_collection' || state.status === 'settled') return [];
  if (!state.settling) throw new Error(`collection ${state.terms.collectionId}: no settlement to complete`);
  if (state.deposit.pendingMovements.length > 0) throw new Error(`collection ${state.terms.collectionId}: cash movements are still to be recorded before the settlement`);
  const { outcome } = command;
  const gross = state.settling.amountReceived;
  if (outcome.feeAmount < 0 || outcome.netAmount < 0 || outcome.feeAmount + outcome.netAmount !== gross) {
    throw new Error(`collection ${state.terms.collectionId}: fee ${outcome.feeAmount} + net ${outcome.netAmount} is not the gross amount ${gross}`);
  }
  return [
    {
      type: 'CollectionSettled',
      collectionId: state.terms.collectionId,
      grossAmount: gross,
      feeAmount: outcome.feeAmount,
      netAmount: outcome.netAmount,
      ledgerEntryId: outcome.entryId,
      // The time of the credit (contract: settled_at), so that a balance as of settled_at includes it.
      settledAt: outcome.createdAt,
    },
  ];
};

function requireExisting(state: Collection): asserts state is Exclude<Collection, { status: 'none' }> {
  if (state.status === 'none') throw new Error('collection does not exist');
}

const requireDepositStage = (state: Collection): InDepositStage => {
  requireExisting(state);
  if (state.status === 'awaiting_collection') throw new ServiceError('invalid_status', 'the cash has not been handed over yet: no deposit to validate');
  if (state.status === 'settled') throw new ServiceError('invalid_status', 'the collection is settled');
  if (state.settling) throw new ServiceError('invalid_status', 'the deposit is being settled');
  return state;
};
