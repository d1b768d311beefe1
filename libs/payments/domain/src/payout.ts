import { ServiceError, type PayoutBatchResource, type PayoutResource, type PayoutStatus } from '@pay/contracts';
import type { Currency, Decider } from '@pay/kernel';

/**
 * The payout aggregate: money out of a connection's available balance to one of its bank accounts.
 * Every ledger step is an intent in the stream, the transfer (idempotent by its operation id), then
 * the outcome: the debit at creation (available -> payouts in transit), the reversal on a cancel or a
 * bank return (back to available), the booking when the bank paid it (in transit -> paid out).
 */
export interface PayoutTerms {
  payoutId: string;
  integratorId: string;
  connection: string;
  bankAccountId: string;
  amount: number;
  currency: Currency;
  description: string | null;
  createdAt: string;
}

/** The bank's return of a payout: its reason code (`AC04`) and the statement entry that carried it. */
export interface PayoutReturn {
  code: string;
  entryRef: string;
  returnedAt: string;
}

export type PayoutEvent =
  | ({ type: 'PayoutRequested' } & PayoutTerms)
  | { type: 'PayoutDebited'; payoutId: string; ledgerEntryId: string; debitedAt: string }
  | { type: 'PayoutRejected'; payoutId: string; reason: 'insufficient_balance'; rejectedAt: string }
  | { type: 'PayoutCancelRequested'; payoutId: string; requestedAt: string }
  | { type: 'PayoutCanceled'; payoutId: string; ledgerEntryId: string; canceledAt: string }
  | { type: 'PayoutBatched'; payoutId: string; batchId: string; batchedAt: string }
  | { type: 'PayoutBooked'; payoutId: string; paidAt: string; entryRef: string }
  /**
   * `paidAt` is the bank's booking date (the payout's `paid_at`); `recordedAt`, the service clock's time
   * the payment was recorded, dates the `payout.paid` event (absent from events stored before it existed).
   */
  | { type: 'PayoutPaid'; payoutId: string; ledgerEntryId: string; paidAt: string; recordedAt?: string }
  | ({ type: 'PayoutReturned'; payoutId: string } & PayoutReturn)
  | { type: 'PayoutFailed'; payoutId: string; ledgerEntryId: string; failedAt: string };

/**
 * `requested`, `canceling`, `paying` and `returning` are intents whose ledger step has not answered
 * yet; `rejected` (the balance did not cover it) was never a payout for the integrator.
 */
export type Payout =
  | { status: 'none' }
  | { status: 'requested'; terms: PayoutTerms }
  | { status: 'rejected'; terms: PayoutTerms; rejectedAt: string }
  | { status: 'pending'; terms: PayoutTerms }
  | { status: 'canceling'; terms: PayoutTerms }
  | { status: 'canceled'; terms: PayoutTerms; canceledAt: string }
  | { status: 'in_transit'; terms: PayoutTerms; batchId: string }
  | { status: 'paying'; terms: PayoutTerms; batchId: string; paidAt: string; entryRef: string }
  | { status: 'paid'; terms: PayoutTerms; batchId: string; paidAt: string; entryRef: string }
  | { status: 'returning'; terms: PayoutTerms; batchId: string; returned: PayoutReturn }
  | { status: 'failed'; terms: PayoutTerms; batchId: string; returned: PayoutReturn; failedAt: string };

export type PayoutDebitOutcome = { status: 'completed'; entryId: string } | { status: 'rejected'; reason: 'insufficient_balance' };

export type PayoutCommand =
  | { type: 'RequestPayout'; terms: PayoutTerms }
  | { type: 'CompleteDebit'; payoutId: string; outcome: PayoutDebitOutcome; now: Date }
  | { type: 'CancelPayout'; payoutId: string; now: Date }
  | { type: 'AddToBatch'; payoutId: string; batchId: string; now: Date }
  | { type: 'BookPayment'; payoutId: string; paidAt: string; entryRef: string }
  | { type: 'ReturnPayout'; payoutId: string; code: string; entryRef: string; now: Date }
  /** The answer of the reversal (cancel, return) or the booking (paid) transfer. */
  | { type: 'CompleteTransfer'; payoutId: string; entryId: string; now: Date };

export const initialPayout: Payout = { status: 'none' };

export const evolvePayout = (state: Payout, event: PayoutEvent): Payout => {
  switch (event.type) {
    case 'PayoutRequested': {
      const { type: _type, ...terms } = event;
      return state.status === 'none' ? { status: 'requested', terms } : state;
    }
    case 'PayoutDebited':
      return state.status === 'requested' ? { status: 'pending', terms: state.terms } : state;
    case 'PayoutRejected':
      return state.status === 'requested' ? { status: 'rejected', terms: state.terms, rejectedAt: event.rejectedAt } : state;
    case 'PayoutCancelRequested':
      return state.status === 'pending' ? { status: 'canceling', terms: state.terms } : state;
    case 'PayoutCanceled':
      return state.status === 'canceling' ? { status: 'canceled', terms: state.terms, canceledAt: event.canceledAt } : state;
    case 'PayoutBatched':
      return state.status === 'pending' ? { status: 'in_transit', terms: state.terms, batchId: event.batchId } : state;
    case 'PayoutBooked':
      return state.status === 'in_transit' ? { status: 'paying', terms: state.terms, batchId: state.batchId, paidAt: event.paidAt, entryRef: event.entryRef } : state;
    case 'PayoutPaid':
      return state.status === 'paying' ? { ...state, status: 'paid' } : state;
    case 'PayoutReturned':
      return state.status === 'in_transit'
        ? { status: 'returning', terms: state.terms, batchId: state.batchId, returned: { code: event.code, entryRef: event.entryRef, returnedAt: event.returnedAt } }
        : state;
    case 'PayoutFailed':
      return state.status === 'returning' ? { ...state, status: 'failed', failedAt: event.failedAt } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown payout event ${JSON.stringify(unknown)}`);
    }
  }
};

const invalidStatus = (payoutId: string, status: string, action: string): ServiceError =>
  new ServiceError('invalid_status', `payout ${payoutId} is ${publicStatusOf(status)}: it cannot be ${action}`);

/**
 * Pure: time and ids on the command. Repeats of an intent already taken decide nothing (retries and
 * recoveries); a cancel, a booking or a return on a payout in another status is `invalid_status`.
 */
export const decidePayout = (command: PayoutCommand, state: Payout): PayoutEvent[] => {
  switch (command.type) {
    case 'RequestPayout':
      return state.status === 'none' ? [{ type: 'PayoutRequested', ...command.terms }] : [];
    case 'CompleteDebit': {
      if (state.status !== 'requested') return [];
      const at = command.now.toISOString();
      return command.outcome.status === 'completed'
        ? [{ type: 'PayoutDebited', payoutId: command.payoutId, ledgerEntryId: command.outcome.entryId, debitedAt: at }]
        : [{ type: 'PayoutRejected', payoutId: command.payoutId, reason: command.outcome.reason, rejectedAt: at }];
    }
    case 'CancelPayout':
      if (state.status === 'canceling') return [];
      if (state.status !== 'pending') throw invalidStatus(command.payoutId, state.status, 'canceled (only a pending payout can)');
      return [{ type: 'PayoutCancelRequested', payoutId: command.payoutId, requestedAt: command.now.toISOString() }];
    case 'AddToBatch':
      // Anything but a pending payout stays out of the batch (canceled meanwhile, in another batch).
      return state.status === 'pending' ? [{ type: 'PayoutBatched', payoutId: command.payoutId, batchId: command.batchId, batchedAt: command.now.toISOString() }] : [];
    case 'BookPayment':
      if ((state.status === 'paying' || state.status === 'paid') && state.entryRef === command.entryRef) return [];
      if (state.status !== 'in_transit') throw invalidStatus(command.payoutId, state.status, 'paid');
      return [{ type: 'PayoutBooked', payoutId: command.payoutId, paidAt: command.paidAt, entryRef: command.entryRef }];
    case 'ReturnPayout':
      if ((state.status === 'returning' || state.status === 'failed') && state.returned.entryRef === command.entryRef) return [];
      if (state.status !== 'in_transit') throw invalidStatus(command.payoutId, state.status, 'returned');
      return [{ type: 'PayoutReturned', payoutId: command.payoutId, code: command.code, entryRef: command.entryRef, returnedAt: command.now.toISOString() }];
    case 'CompleteTransfer': {
      const at = command.now.toISOString();
      const { payoutId, entryId } = command;
      switch (state.status) {
        case 'canceling':
          return [{ type: 'PayoutCanceled', payoutId, ledgerEntryId: entryId, canceledAt: at }];
        case 'paying':
          return [{ type: 'PayoutPaid', payoutId, ledgerEntryId: entryId, paidAt: state.paidAt, recordedAt: at }];
        case 'returning':
          return [{ type: 'PayoutFailed', payoutId, ledgerEntryId: entryId, failedAt: at }];
        default:
          return [];
      }
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown payout command ${JSON.stringify(unknown)}`);
    }
  }
};

export const payoutDecider: Decider<PayoutCommand, PayoutEvent, Payout> = { decide: decidePayout, evolve: evolvePayout, initialState: initialPayout };

export const payoutStreamId = (payoutId: string): string => `payout-${payoutId}`;

/** The ledger operations of a payout: one each, so a replay never moves money twice. */
export const payoutOperationId = (payoutId: string): string => `payout:${payoutId}`;
export const payoutReversalOperationId = (payoutId: string): string => `payout-reversal:${payoutId}`;
export const payoutPaidOperationId = (payoutId: string): string => `payout-paid:${payoutId}`;

/** A status integrators see: an intent shows the status its ledger step leaves (until it has answered, the money has not moved). */
export const publicStatusOf = (status: string): PayoutStatus | 'rejected' | 'none' => {
  switch (status) {
    case 'requested':
    case 'canceling':
      return 'pending';
    case 'paying':
    case 'returning':
      return 'in_transit';
    default:
      return status as PayoutStatus | 'rejected' | 'none';
  }
};

/** Whether a ledger step has started and not answered (what the sweeper finishes after a crash). */
export const isPayoutStepPending = (status: string): boolean => ['requested', 'canceling', 'paying', 'returning'].includes(status);

export type ExistingPayout = Exclude<Payout, { status: 'none' }>;

export const toPayoutResource = (state: Exclude<ExistingPayout, { status: 'rejected' }>): PayoutResource => ({
  id: state.terms.payoutId,
  object: 'payout',
  connection: state.terms.connection,
  bank_account: state.terms.bankAccountId,
  amount: state.terms.amount,
  currency: state.terms.currency,
  description: state.terms.description,
  fee_amount: 0,
  status: publicStatusOf(state.status) as PayoutStatus,
  failure_reason: state.status === 'failed' ? 'returned_by_bank' : null,
  failure_code: state.status === 'failed' ? state.returned.code : null,
  batch: 'batchId' in state ? state.batchId : null,
  created_at: state.terms.createdAt,
  paid_at: state.status === 'paid' ? state.paidAt : null,
});

// ---- batches ----

/**
 * A batch of payouts sent to the bank in one file: opened with the pending payouts of a currency,
 * each then moved in transit (those canceled or batched elsewhere meanwhile stay out), closed with
 * the payouts it holds. Whoever finds it open (the request, the sweeper after a crash) closes it.
 */
export interface PayoutBatchItem {
  payoutId: string;
  amount: number;
}

export type PayoutBatchEvent =
  | { type: 'BankBatchOpened'; batchId: string; currency: Currency; candidates: string[]; openedAt: string }
  | { type: 'BankBatchClosed'; batchId: string; payouts: PayoutBatchItem[]; closedAt: string };

export type PayoutBatch =
  | { status: 'none' }
  | { status: 'open'; batchId: string; currency: Currency; candidates: string[]; openedAt: string }
  | { status: 'closed'; batchId: string; currency: Currency; payouts: PayoutBatchItem[]; openedAt: string };

export type PayoutBatchCommand =
  | { type: 'OpenBatch'; batchId: string; currency: Currency; candidates: string[]; now: Date }
  | { type: 'CloseBatch'; batchId: string; payouts: PayoutBatchItem[]; now: Date };

export const initialPayoutBatch: PayoutBatch = { status: 'none' };

export const evolvePayoutBatch = (state: PayoutBatch, event: PayoutBatchEvent): PayoutBatch => {
  switch (event.type) {
    case 'BankBatchOpened':
      return state.status === 'none' ? { status: 'open', batchId: event.batchId, currency: event.currency, candidates: event.candidates, openedAt: event.openedAt } : state;
    case 'BankBatchClosed':
      return state.status === 'open' ? { status: 'closed', batchId: state.batchId, currency: state.currency, payouts: event.payouts, openedAt: state.openedAt } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown payout batch event ${JSON.stringify(unknown)}`);
    }
  }
};

export const decidePayoutBatch = (command: PayoutBatchCommand, state: PayoutBatch): PayoutBatchEvent[] => {
  switch (command.type) {
    case 'OpenBatch':
      return state.status === 'none'
        ? [{ type: 'BankBatchOpened', batchId: command.batchId, currency: command.currency, candidates: command.candidates, openedAt: command.now.toISOString() }]
        : [];
    case 'CloseBatch':
      return state.status === 'open' ? [{ type: 'BankBatchClosed', batchId: command.batchId, payouts: command.payouts, closedAt: command.now.toISOString() }] : [];
    default: {
      const unknown: never = command;
      throw new Error(`unknown payout batch command ${JSON.stringify(unknown)}`);
    }
  }
};

export const payoutBatchDecider: Decider<PayoutBatchCommand, PayoutBatchEvent, PayoutBatch> = {
  decide: decidePayoutBatch,
  evolve: evolvePayoutBatch,
  initialState: initialPayoutBatch,
};

export const payoutBatchStreamId = (batchId: string): string => `payout-batch-${batchId}`;

export const toPayoutBatchResource = (state: Extract<PayoutBatch, { status: 'closed' }>): PayoutBatchResource => ({
  object: 'payout_batch',
  id: state.batchId,
  currency: state.currency,
  count: state.payouts.length,
  total_amount: state.payouts.reduce((sum, p) => sum + p.amount, 0),
  created_at: state.openedAt,
});
