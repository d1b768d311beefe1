import type { Currency } from '@pay/kernel';

/** The collection aggregate: its events, its state (a union on status) and evolve. */

export interface CollectionTerms {
  collectionId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  beneficiaryConnection: string;
  createdAt: string;
}

/**
 * Where the collected cash sits, as the ledger tracks it: `cash` is the platform's counter-account of
 * physical cash entering the system, `in_transit` the carrier's cash in transit, `cash_point` the
 * assigned cash point's account (all in the collection's currency).
 */
export type CashCustody = 'cash' | 'in_transit' | 'cash_point';

/** A movement of the cash itself between custody accounts: a ledger transfer without fee, once per operation id. */
export interface CashMovement {
  operationId: string;
  kind: 'cash_handover' | 'cash_deposit' | 'cash_write_off';
  from: CashCustody;
  to: CashCustody;
  amount: number;
}

/** Who recorded a count or started a settlement: the cash agent, or the back office resolving a review. */
export type DepositSource = 'cash_agent' | 'back_office_correction' | 'back_office_accept_received';

export type CollectionEvent =
  | ({ type: 'CollectionCreated' } & CollectionTerms)
  | {
      type: 'CollectionCollected';
      collectionId: string;
      cashPoint: string;
      collectedAt: string;
      dueAt: string;
      movement: CashMovement;
      /** The agent who confirmed the handover in the agents' application (absent: the sandbox helper). */
      carrier?: string;
    }
  | { type: 'CollectionDepositUnderReview'; collectionId: string; amountReceived: number; reviewedAt: string; source: DepositSource; movement: CashMovement | null }
  | {
      type: 'CollectionSettlementStarted';
      collectionId: string;
      amountReceived: number;
      validatedAt: string;
      operationId: string;
      source: DepositSource;
      /** The cash movements that must be recorded before the settlement transfer (the deposit, a write-off). */
      movements: CashMovement[];
    }
  | { type: 'CollectionCashMoved'; collectionId: string; operationId: string; ledgerEntryId: string }
  | { type: 'CollectionDepositOverdue'; collectionId: string; detectedAt: string }
  | { type: 'CollectionSettled'; collectionId: string; grossAmount: number; feeAmount: number; netAmount: number; ledgerEntryId: string; settledAt: string };

/** The cash between the handover and the validated deposit. */
export interface Deposit {
  cashPoint: string;
  /** The carrier holding the cash until the deposit, when an agent confirmed the handover. */
  carrier?: string;
  collectedAt: string;
  dueAt: string;
  /** The last amount counted (a deposit under review), or null; the cash point's account holds it. */
  amountReceived: number | null;
  /** How many counts were recorded: numbers the deposit movements' operation ids. */
  counts: number;
  /** collection.deposit_overdue was emitted (once per collection). */
  overdueNotified: boolean;
  /** Cash movements decided and not yet recorded by the ledger, in the order they must run. */
  pendingMovements: CashMovement[];
}

/** An exact (or accepted) deposit whose ledger transfer is under way (or done, its outcome not yet recorded). */
export interface SettlementStart {
  amountReceived: number;
  /** While settling, the validation request's time; once settled, the credit's (settled_at). */
  validatedAt: string;
  operationId: string;
}

export interface Settlement {
  grossAmount: number;
  feeAmount: number;
  netAmount: number;
  ledgerEntryId: string;
  settledAt: string;
}

export type Collection =
  | { status: 'none' }
  | { status: 'awaiting_collection'; terms: CollectionTerms }
  | { status: 'collected_awaiting_deposit'; terms: CollectionTerms; deposit: Deposit; settling: SettlementStart | null }
  | { status: 'deposit_under_review'; terms: CollectionTerms; deposit: Deposit; settling: SettlementStart | null }
  | { status: 'settled'; terms: CollectionTerms; deposit: Deposit; validation: SettlementStart; settlement: Settlement };

export type InDepositStage = Extract<Collection, { status: 'collected_awaiting_deposit' | 'deposit_under_review' }>;

export const initialCollection: Collection = { status: 'none' };

export const inDepositStage = (state: Collection): state is InDepositStage =>
  state.status === 'collected_awaiting_deposit' || state.status === 'deposit_under_review';

const withMovements = (deposit: Deposit, movements: readonly CashMovement[]): CashMovement[] => [...deposit.pendingMovements, ...movements];

export const evolve = (state: Collection, event: CollectionEvent): Collection => {
  switch (event.type) {
    case 'CollectionCreated': {
      const { type: _type, ...terms } = event;
      return { status: 'awaiting_collection', terms };
    }
    case 'CollectionCollected':
      if (state.status !== 'awaiting_collection') return state;
      return {
        status: 'collected_awaiting_deposit',
        terms: state.terms,
        deposit: {
          cashPoint: event.cashPoint,
          ...(event.carrier ? { carrier: event.carrier } : {}),
          collectedAt: event.collectedAt,
          dueAt: event.dueAt,
          amountReceived: null,
          counts: 0,
          overdueNotified: false,
          pendingMovements: [event.movement],
        },
        settling: null,
      };
    case 'CollectionDepositUnderReview':
      if (!inDepositStage(state)) return state;
      return {
        status: 'deposit_under_review',
        terms: state.terms,
        deposit: {
          ...state.deposit,
          amountReceived: event.amountReceived,
          counts: state.deposit.counts + 1,
          pendingMovements: withMovements(state.deposit, event.movement ? [event.movement] : []),
        },
        settling: null,
      };
    case 'CollectionSettlementStarted': {
      if (!inDepositStage(state)) return state;
      const recounted = event.source !== 'back_office_accept_received';
      return {
        ...state,
        deposit: {
          ...state.deposit,
          counts: state.deposit.counts + (recounted ? 1 : 0),
          pendingMovements: withMovements(state.deposit, event.movements),
        },
        settling: { amountReceived: event.amountReceived, validatedAt: event.validatedAt, operationId: event.operationId },
      };
    }
    case 'CollectionCashMoved':
      if (!inDepositStage(state)) return state;
      return { ...state, deposit: { ...state.deposit, pendingMovements: state.deposit.pendingMovements.filter((m) => m.operationId !== event.operationId) } };
    case 'CollectionDepositOverdue':
      if (!inDepositStage(state)) return state;
      return { ...state, deposit: { ...state.deposit, overdueNotified: true } };
    case 'CollectionSettled':
      if (!inDepositStage(state) || !state.settling) return state;
      return {
        status: 'settled',
        terms: state.terms,
        deposit: { ...state.deposit, amountReceived: state.settling.amountReceived },
        // deposit.validated_at equals settled_at (contract): the validation counts from the credit's time.
        // A settlement recorded with the validation request's time as settledAt folds the same way.
        validation: { ...state.settling, validatedAt: event.settledAt },
        settlement: {
          grossAmount: event.grossAmount,
          feeAmount: event.feeAmount,
          netAmount: event.netAmount,
          ledgerEntryId: event.ledgerEntryId,
          settledAt: event.settledAt,
        },
      };
    default: {
      const unknown: never = event;
      throw new Error(`unknown collection event ${JSON.stringify(unknown)}`);
    }
  }
};
