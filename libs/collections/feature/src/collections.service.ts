import type { Pool } from 'pg';
import type { MessageBus } from '@pay/bus';
import {
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
  type CollectionRef,
  type ConfirmHandoverRequest,
  type CollectionResource,
  type CreateCollectionRequest,
  type ResolveDepositRequest,
  type ValidateDepositRequest,
} from '@pay/contracts';
import { LedgerTransferStep, type AggregateRepository, type Existing, type Loaded } from '@pay/event-store';
import { CONTENDED_COMMAND_RETRIES_MAX, failpoint, LEDGER_TIMEOUT_MS, MOVEMENTS_PER_FINISH_MAX, type Clock } from '@pay/kernel';

export interface CollectionsConfig {
  publicBaseUrl: string;
  /** A ledger call that takes longer is abandoned by this request and finished by the recovery sweep. */
  ledgerTimeoutMs?: number;
}

export type Collections = AggregateRepository<CollectionCommand, CollectionEvent, Collection>;

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
/**
 * A deposit's stream is written by the cashier's counts, the back office's resolutions and each
 * recount's cash movement at once: more retries on a conflict than a command racing only itself, so
 * that a recount is answered (200, or 409 once the deposit is settled) rather than failing after the
 * count it raced took effect.
 */
const DEPOSIT_CONTENDED = { retriesMax: CONTENDED_COMMAND_RETRIES_MAX };

export class CollectionsService {
  private readonly ledgerTimeoutMs: number;
  private readonly ledger: LedgerTransferStep;

  constructor(
    private readonly collections: Collections,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    config: CollectionsConfig,
  ) {
    this.ledgerTimeoutMs = config.ledgerTimeoutMs ?? LEDGER_TIMEOUT_MS;
    this.ledger = new LedgerTransferStep(bus, this.ledgerTimeoutMs);
  }

  async create(request: CreateCollectionRequest): Promise<CollectionResource> {
    const { collectionId } = request;
    const created = await this.collections.create(
      collectionId,
      {
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
      },
      request.integratorId,
    );
    return toCollectionResource(created, this.clock.now());
  }

  async retrieve(ref: CollectionRef): Promise<CollectionResource> {
    return this.resource((await this.visible(ref)).state, ref);
  }

  async confirmHandover(ref: ConfirmHandoverRequest): Promise<CollectionResource> {
    const from = await this.visible(ref);
    const cashPoint = await this.assignedCashPoint();
    const command = { type: 'ConfirmHandover' as const, collectionId: ref.collectionId, cashPoint, now: this.clock.now(), ...(ref.carrier ? { carrier: ref.carrier } : {}) };
    const handedOver = await this.collections.execute(ref.collectionId, command, { from });
    return this.resource(await this.finishFrom(ref.collectionId, handedOver), ref);
  }

  async validateDeposit(request: ValidateDepositRequest): Promise<CollectionResource> {
    const from = await this.visible(request);
    const { collectionId, amountReceived } = request;
    const validated = await this.collections.execute(collectionId, { type: 'ValidateDeposit', collectionId, amountReceived, now: this.clock.now() }, { ...DEPOSIT_CONTENDED, from });
    return this.resource(await this.finishFrom(collectionId, validated), request);
  }

  /** The back office resolves a deposit under review (admin API: any integrator's collection). */
  async resolveDeposit(request: ResolveDepositRequest): Promise<CollectionResource> {
    const { collectionId } = request;
    const before = await this.collections.loadExisting(collectionId);
    const resolution = request.resolution === 'correct' ? { type: 'correct' as const, amountReceived: request.amountReceived } : { type: 'accept_received' as const };
    const resolved = await this.collections.execute(collectionId, { type: 'ResolveDeposit', collectionId, resolution, now: this.clock.now() }, { ...DEPOSIT_CONTENDED, from: before });
    const after = await this.finishFrom(collectionId, resolved);
    return this.resource(after, { integratorId: before.state.terms.integratorId, collectionId });
  }

  /**
   * The process's remaining steps: the cash movements decided and not yet recorded, in order, then a
   * started settlement. A no-op once every outcome is recorded.
   */
  async finish(collectionId: string): Promise<Existing<Collection>> {
    return this.finishFrom(collectionId, await this.collections.loadExisting(collectionId));
  }

  /** The remaining steps from a state just read or written (`current`): a stale one only costs a conflict and a re-read. */
  private async finishFrom(collectionId: string, current: Loaded<Collection>): Promise<Existing<Collection>> {
    let loaded = current;
    let state = this.collections.visible(loaded.state, collectionId, null);
    for (let step = 0; inDepositStage(state) && state.deposit.pendingMovements.length > 0; step++) {
      if (step >= MOVEMENTS_PER_FINISH_MAX) throw new Error(`collection ${collectionId}: more than ${MOVEMENTS_PER_FINISH_MAX} cash movements pending`);
      const movement = state.deposit.pendingMovements[0]!;
      const ledgerEntryId = await this.moveCash(collectionId, state.terms, state.deposit.cashPoint, movement);
      loaded = await this.collections.execute(
        collectionId,
        { type: 'RecordCashMovement', collectionId, operationId: movement.operationId, ledgerEntryId, now: this.clock.now() },
        { ...DEPOSIT_CONTENDED, from: loaded },
      );
      state = this.collections.visible(loaded.state, collectionId, null);
    }
    return this.finishSettlement(collectionId, loaded);
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

  /** The settlement's ledger step and outcome, once every cash movement before it is recorded (see LedgerTransferStep). */
  private finishSettlement(collectionId: string, current: Loaded<Collection>): Promise<Existing<Collection>> {
    return this.ledger.finish(
      this.collections,
      collectionId,
      current,
      (state) => {
        if (!inDepositStage(state) || !state.settling || state.deposit.pendingMovements.length > 0) return null;
        const { terms, settling } = state;
        return {
          transfer: {
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
          complete: (transfer) => {
            if (transfer.status !== 'completed') throw new Error(`settlement of ${collectionId}: the ledger refused the transfer (${transfer.reason})`);
            const outcome = { entryId: transfer.entryId, feeAmount: transfer.feeAmount, netAmount: transfer.netAmount, createdAt: transfer.createdAt };
            return { type: 'CompleteSettlement' as const, collectionId, outcome, now: this.clock.now() };
          },
        };
      },
      'collections.after-ledger-transfer',
    );
  }


  /** The deadline sweep: reports the deposit overdue once, if the service clock is past due_at. */
  async markOverdue(collectionId: string): Promise<boolean> {
    const { events } = await this.collections.execute(collectionId, { type: 'MarkDepositOverdue', collectionId, now: this.clock.now() });
    return events.length > 0;
  }

  /** The documented rule: the first cash point registered on the platform; null when there is none. */
  private async assignedCashPoint(): Promise<string | null> {
    const { data } = await this.bus.request('cash.cash-points.list', { limit: 1 });
    return data[0]?.id ?? null;
  }

  private visible(ref: CollectionRef): Promise<Loaded<Existing<Collection>>> {
    return this.collections.loadVisible(ref.collectionId, ref.integratorId);
  }

  /** The collection as `ref`'s integrator sees it (null: the agents' application), its `deposit.overdue` as of now. */
  private resource(state: Collection, ref: CollectionRef): CollectionResource {
    return toCollectionResource(this.collections.visible(state, ref.collectionId, ref.integratorId), this.clock.now());
  }
}

/** Collections in need of a sweep, read from the projection. */
export class CollectionSweeps {
  constructor(private readonly pool: Pool) {}

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
