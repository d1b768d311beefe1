import type { Pool } from 'pg';
import type { MessageBus } from '@pay/bus';
import {
  collectionDecider,
  collectionStreamId,
  inDepositStage,
  toCollectionResource,
  type CashCustody,
  type CashMovement,
  type Collection,
  type CollectionCommand,
  type CollectionEvent,
  type CollectionTerms,
} from '@pay/collections-domain';
import {
  cashPointAccount,
  notFound,
  type CollectionRef,
  type CollectionResource,
  type CreateCollectionRequest,
  type ResolveDepositRequest,
  type ValidateDepositRequest,
} from '@pay/contracts';
import { fold, handleCommand, type EventStore } from '@pay/event-store';
import { failpoint, type Clock } from '@pay/kernel';
import { toIntegrationEvent } from './collection-events';

export interface CollectionsConfig {
  publicBaseUrl: string;
  /** A ledger call that takes longer is abandoned by this request and finished by the recovery sweep. */
  ledgerTimeoutMs?: number;
}

const LEDGER_TIMEOUT_MS_DEFAULT = 10_000;
/** A collection has at most a handover, a movement per count and a write-off pending: this bounds a runaway. */
const MOVEMENTS_PER_FINISH_MAX = 100;

type Existing = Exclude<Collection, { status: 'none' }>;

/**
 * The collections app: the collection aggregate behind the bus, and the process between collections
 * and the ledger. The ledger follows the cash: the handover moves the amount from the platform's cash
 * to cash in transit, each count of the deposit moves what it changed between cash in transit and the
 * cash point's account, and the settlement pays the wholesaler (less the fee) from the cash point's
 * account. Every movement has two durable steps: its intent in the stream (in the event that decided
 * it), then the ledger transfer (idempotent by its operation id), then its outcome in the stream
 * (CollectionCashMoved, CollectionSettled). Whoever finds an intent without its outcome (this request,
 * or the recovery at start-up and the sweep after a crash) runs the remaining steps, in the decided
 * order; replays never move money twice.
 *
 * Cash point assignment: the deposit goes to the first cash point registered on the platform (the
 * oldest of `cash.cash-points.list`), fixed on the collection at the handover.
 */
export class CollectionsService {
  private readonly ledgerTimeoutMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    config: CollectionsConfig,
  ) {
    this.ledgerTimeoutMs = config.ledgerTimeoutMs ?? LEDGER_TIMEOUT_MS_DEFAULT;
  }

  async create(request: CreateCollectionRequest): Promise<CollectionResource> {
    const { collectionId } = request;
    const { state } = await this.execute(collectionId, {
      type: 'CreateCollection',
      terms: {
        collectionId,
        integratorId: request.integratorId,
        amount: request.amount,
        currency: request.currency,
        orderReference: request.orderReference,
        beneficiaryConnection: request.beneficiaryConnection,
      },
      now: this.clock.now(),
    });
    return this.visible(state, { integratorId: request.integratorId, collectionId });
  }

  async retrieve(ref: CollectionRef): Promise<CollectionResource> {
    return this.visible(await this.load(ref.collectionId), ref);
  }

  async confirmHandover(ref: CollectionRef): Promise<CollectionResource> {
    await this.retrieve(ref);
    const cashPoint = await this.assignedCashPoint();
    await this.execute(ref.collectionId, { type: 'ConfirmHandover', collectionId: ref.collectionId, cashPoint, now: this.clock.now() });
    return this.visible(await this.finish(ref.collectionId), ref);
  }

  async validateDeposit(request: ValidateDepositRequest): Promise<CollectionResource> {
    await this.retrieve(request);
    const { collectionId, amountReceived } = request;
    await this.execute(collectionId, { type: 'ValidateDeposit', collectionId, amountReceived, now: this.clock.now() });
    return this.visible(await this.finish(collectionId), request);
  }

  /** The back office resolves a deposit under review (admin API: any integrator's collection). */
  async resolveDeposit(request: ResolveDepositRequest): Promise<CollectionResource> {
    const { collectionId } = request;
    const before = await this.load(collectionId);
    const resolution = request.resolution === 'correct' ? { type: 'correct' as const, amountReceived: request.amountReceived } : { type: 'accept_received' as const };
    await this.execute(collectionId, { type: 'ResolveDeposit', collectionId, resolution, now: this.clock.now() });
    const after = await this.finish(collectionId);
    return this.visible(after, { integratorId: before.terms.integratorId, collectionId });
  }

  /**
   * The process's remaining steps: the cash movements decided and not yet recorded, in order, then a
   * started settlement. A no-op once every outcome is recorded.
   */
  async finish(collectionId: string): Promise<Existing> {
    let state = await this.load(collectionId);
    for (let step = 0; inDepositStage(state) && state.deposit.pendingMovements.length > 0; step++) {
      if (step >= MOVEMENTS_PER_FINISH_MAX) throw new Error(`collection ${collectionId}: more than ${MOVEMENTS_PER_FINISH_MAX} cash movements pending`);
      const movement = state.deposit.pendingMovements[0]!;
      const ledgerEntryId = await this.moveCash(collectionId, state.terms, state.deposit.cashPoint, movement);
      const recorded = await this.execute(collectionId, { type: 'RecordCashMovement', collectionId, operationId: movement.operationId, ledgerEntryId, now: this.clock.now() });
      state = recorded.state as Existing;
    }
    return this.finishSettlement(collectionId);
  }

  /** One cash movement: a ledger transfer without fee, idempotent by the movement's operation id. */
  private async moveCash(collectionId: string, terms: CollectionTerms, cashPoint: string, movement: CashMovement): Promise<string> {
    const account = (custody: CashCustody): string => {
      switch (custody) {
        case 'cash':
          return `platform:cash:${terms.currency}`;
        case 'in_transit':
          return `platform:cash_in_transit:${terms.currency}`;
        case 'cash_point':
          return cashPointAccount(cashPoint, terms.currency);
        default: {
          const unknown: never = custody;
          throw new Error(`unknown custody ${String(unknown)}`);
        }
      }
    };
    // The cash point's account in this currency is opened on first use (idempotent).
    if (movement.from === 'cash_point' || movement.to === 'cash_point') {
      await this.bus.request('ledger.open-account', { owner: account('cash_point'), kind: 'cash_point', currency: terms.currency }, { timeoutMs: this.ledgerTimeoutMs });
    }
    const transfer = await this.bus.request(
      'ledger.transfer',
      {
        operationId: movement.operationId,
        reference: collectionId,
        useCase: movement.kind,
        feeMode: 'none',
        debitOwner: account(movement.from),
        creditOwner: account(movement.to),
        amount: movement.amount,
        currency: terms.currency,
      },
      { timeoutMs: this.ledgerTimeoutMs },
    );
    failpoint('collections.after-cash-movement');
    if (transfer.status !== 'completed') throw new Error(`cash movement ${movement.operationId}: the ledger refused the transfer (${transfer.reason})`);
    return transfer.entryId;
  }

  /** The settlement's remaining steps, once every cash movement before it is recorded; a no-op once its outcome is. */
  private async finishSettlement(collectionId: string): Promise<Existing> {
    const state = await this.load(collectionId);
    if (!inDepositStage(state) || !state.settling || state.deposit.pendingMovements.length > 0) return state;
    const { terms, settling } = state;
    const transfer = await this.bus.request(
      'ledger.transfer',
      {
        operationId: settling.operationId,
        reference: collectionId,
        useCase: 'settlement',
        feeMode: 'deducted',
        // The deposit counted at the cash point pays the wholesaler, less the settlement fee.
        debitOwner: cashPointAccount(state.deposit.cashPoint, terms.currency),
        creditOwner: terms.beneficiaryConnection,
        amount: settling.amountReceived,
        currency: terms.currency,
      },
      { timeoutMs: this.ledgerTimeoutMs },
    );
    failpoint('collections.after-ledger-transfer');
    if (transfer.status !== 'completed') throw new Error(`settlement of ${collectionId}: the ledger refused the transfer (${transfer.reason})`);
    const { state: after } = await this.execute(collectionId, {
      type: 'CompleteSettlement',
      collectionId,
      outcome: { entryId: transfer.entryId, feeAmount: transfer.feeAmount, netAmount: transfer.netAmount },
      now: this.clock.now(),
    });
    return after as Existing;
  }

  /** The deadline sweep: reports the deposit overdue once, if the service clock is past due_at. */
  async markOverdue(collectionId: string): Promise<boolean> {
    const { events } = await this.execute(collectionId, { type: 'MarkDepositOverdue', collectionId, now: this.clock.now() });
    return events.length > 0;
  }

  /** The documented rule: the first cash point registered on the platform; null when there is none. */
  private async assignedCashPoint(): Promise<string | null> {
    const { data } = await this.bus.request('cash.cash-points.list', { limit: 1 });
    return data[0]?.id ?? null;
  }

  /**
   * Decides and appends; a status change is then recorded with the webhooks app before anyone is
   * answered (the relay records it instead if the process dies in between).
   */
  private async execute(collectionId: string, command: CollectionCommand) {
    const handled = await handleCommand<CollectionCommand, CollectionEvent, Collection>(this.store, collectionStreamId(collectionId), collectionDecider, command, {
      expectNew: command.type === 'CreateCollection',
    });
    const [event, ...more] = handled.events;
    if (event && more.length > 0) throw new Error('a collection command decides at most one event');
    const integrationEvent = event && toIntegrationEvent(event, handled.state, handled.revision);
    if (integrationEvent) await this.bus.request('events.record', integrationEvent);
    return handled;
  }

  private async load(collectionId: string): Promise<Existing> {
    const state = fold(collectionDecider, await this.store.readStream(collectionStreamId(collectionId)));
    if (state.status === 'none') throw notFound('collection', collectionId);
    return state;
  }

  /** An integrator sees only its own collections; anything else is as if it did not exist (null: the agents' application). */
  private visible(state: Collection, ref: CollectionRef): CollectionResource {
    if (state.status === 'none' || (ref.integratorId !== null && state.terms.integratorId !== ref.integratorId)) throw notFound('collection', ref.collectionId);
    return toCollectionResource(state, this.clock.now());
  }
}

/** Collections in need of a sweep, read from the projection. */
export class CollectionSweeps {
  constructor(private readonly pool: Pool) {}

  /** Collections whose settlement or cash movements were decided more than `olderThanMs` ago (real time) and not recorded. */
  async unfinished(olderThanMs: number, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ collection_id: string }>({
      name: 'collections-unfinished',
      text: `SELECT collection_id FROM collection_views WHERE (settling OR pending_movements > 0) AND updated_at <= now() - make_interval(secs => $1)
             ORDER BY updated_at LIMIT $2`,
      values: [olderThanMs / 1000, limit],
    });
    return rows.map((r) => r.collection_id);
  }

  /** Deposits past due_at on the service clock (`now`), neither validated nor reported overdue yet. */
  async dueForOverdue(now: Date, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ collection_id: string }>({
      name: 'collections-due-for-overdue',
      text: `SELECT collection_id FROM collection_views
             WHERE status IN ('collected_awaiting_deposit', 'deposit_under_review') AND NOT overdue_notified AND NOT settling AND due_at < $1
             ORDER BY due_at LIMIT $2`,
      values: [now, limit],
    });
    return rows.map((r) => r.collection_id);
  }
}
