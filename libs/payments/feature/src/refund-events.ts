import { statusChangeEvents, type AggregateType } from '@pay/event-store';
import { refundDecider, refundStreamId, toRefundResource, type Refund, type RefundCommand, type RefundEvent } from '@pay/payments-domain';
import { REFUND_EVENT_PREFIX } from './refund-projection';

/** `refund.succeeded` or `refund.failed` with the refund as data, or null for the request itself. */
export const toRefundIntegrationEvent = statusChangeEvents<RefundEvent, Refund>(refundStreamId, toRefundResource, {
  RefundRequested: null,
  RefundSucceeded: { type: 'refund.succeeded', at: (event) => event.succeededAt },
  RefundFailed: { type: 'refund.failed', at: (event) => event.failedAt },
});

/** The refund aggregate as the runtime knows it (repository, relay). */
export const refundAggregate: AggregateType<RefundCommand, RefundEvent, Refund> = {
  name: 'refund',
  decider: refundDecider,
  streamId: refundStreamId,
  eventTypePrefix: REFUND_EVENT_PREFIX,
  toIntegrationEvent: toRefundIntegrationEvent,
  isInternal: (event) => event.type === 'RefundRequested',
};
