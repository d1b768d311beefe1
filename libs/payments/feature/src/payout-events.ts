import { statusChangeEvents, type AggregateType } from '@pay/event-store';
import {
  payoutBatchDecider,
  payoutBatchStreamId,
  payoutDecider,
  payoutStreamId,
  toPayoutResource,
  type Payout,
  type PayoutBatch,
  type PayoutBatchCommand,
  type PayoutBatchEvent,
  type PayoutCommand,
  type PayoutEvent,
} from '@pay/payments-domain';
import { PAYOUT_BATCH_EVENT_PREFIX, PAYOUT_EVENT_PREFIX } from './payout-projection';

/** `payout.in_transit`, `.paid`, `.failed`, `.canceled` with the payout as data; intents and the debit are no event. */
export const toPayoutIntegrationEvent = statusChangeEvents<PayoutEvent, Payout>(
  payoutStreamId,
  (state) => {
    if (state.status === 'rejected') throw new Error(`payout ${state.terms.payoutId}: a refused payout has no event`);
    return toPayoutResource(state);
  },
  {
    PayoutRequested: null,
    PayoutDebited: null,
    PayoutRejected: null,
    PayoutCancelRequested: null,
    PayoutCanceled: { type: 'payout.canceled', at: (event) => event.canceledAt },
    PayoutBatched: { type: 'payout.in_transit', at: (event) => event.batchedAt },
    PayoutBooked: null,
    // Dated when recorded, as every event: the bank's booking date (paid_at) may be a day or more before.
    PayoutPaid: { type: 'payout.paid', at: (event) => event.recordedAt ?? event.paidAt },
    PayoutReturned: null,
    PayoutFailed: { type: 'payout.failed', at: (event) => event.failedAt },
  },
);

const INTERNAL: ReadonlySet<PayoutEvent['type']> = new Set(['PayoutRequested', 'PayoutDebited', 'PayoutRejected', 'PayoutCancelRequested', 'PayoutBooked', 'PayoutReturned']);

export const payoutAggregate: AggregateType<PayoutCommand, PayoutEvent, Payout> = {
  name: 'payout',
  decider: payoutDecider,
  streamId: payoutStreamId,
  eventTypePrefix: PAYOUT_EVENT_PREFIX,
  toIntegrationEvent: toPayoutIntegrationEvent,
  isInternal: (event) => INTERNAL.has(event.type),
};

/** Batches are the platform's own: no integration event. */
export const payoutBatchAggregate: AggregateType<PayoutBatchCommand, PayoutBatchEvent, PayoutBatch> = {
  name: 'payout batch',
  decider: payoutBatchDecider,
  streamId: payoutBatchStreamId,
  eventTypePrefix: PAYOUT_BATCH_EVENT_PREFIX,
  toIntegrationEvent: () => null,
  isInternal: () => true,
};
