import { batchingRequest, toOutcomes, type MessageBus } from '@pay/bus';
import type { ExecuteTransfer, TransferOutcome } from '@pay/contracts';
import { failpoint, TRANSFER_BATCH_SIZE_MAX } from '@pay/kernel';
import type { AggregateRepository, Existing, OwnedState } from './aggregate-repository';
import type { Loaded } from './command-handler';

/** What a started intent asks of the ledger, and the command that records the answer. */
export interface PendingTransfer<Command> {
  transfer: ExecuteTransfer;
  /** The outcome command; throws when the process cannot accept the answer (a transfer the ledger refused that never should be). */
  complete(outcome: TransferOutcome): Command;
}

/**
 * The middle of every two-step process (an intent in the stream, the ledger transfer, the outcome in
 * the stream), run by whoever finds an intent without its outcome: the request that started it, or
 * the sweeper after a crash. The transfer is idempotent by the intent's operation id, so running this
 * again answers the first outcome and never moves money twice; the failpoint names the crash between
 * the transfer and the outcome (the crash tests kill the process there).
 */
export class LedgerTransferStep {
  private readonly transfer: (transfer: ExecuteTransfer) => Promise<TransferOutcome>;

  constructor(bus: MessageBus, timeoutMs: number) {
    this.transfer = transferWith(bus, timeoutMs);
  }

  /**
   * From a state just read or written (`current`: a stale one only costs a conflict and a re-read):
   * nothing when `pending` finds no intent awaiting its transfer, else the transfer then its outcome.
   */
  async finish<Command, Event extends { type: string }, State extends OwnedState>(
    repository: AggregateRepository<Command, Event, State>,
    id: string,
    current: Loaded<State>,
    pending: (state: Existing<State>) => PendingTransfer<Command> | null,
    failpointName: string,
  ): Promise<Existing<State>> {
    const state = repository.visible(current.state, id, null);
    const step = pending(state);
    if (!step) return state;
    const outcome = await this.transfer(step.transfer);
    failpoint(failpointName);
    const { state: after } = await repository.execute(id, step.complete(outcome), { from: current });
    return repository.visible(after, id, null);
  }
}

/**
 * `ledger.transfer` over the bus. Over Kafka, the transfers of concurrent commands leave together: one
 * `ledger.transfer-batch` per currency (its partition, and so its ledger instance) while that
 * currency's last request is in flight; each caller gets its own outcome or error.
 */
const transferWith = (bus: MessageBus, timeoutMs: number) =>
  batchingRequest(
    bus,
    'ledger.transfer',
    {
      topic: 'ledger.transfer-batch',
      request: (transfers) => ({ currency: transfers[0]!.currency, transfers }),
      outcomes: ({ outcomes }) => toOutcomes(outcomes),
      max: TRANSFER_BATCH_SIZE_MAX,
      laneOf: (transfer) => transfer.currency,
    },
    { timeoutMs },
  );
