import { type IntegrationEvent } from '@pay/contracts';
import { statusChangeEvent, type AggregateType } from '@pay/event-store';
import { refundDecider, refundStreamId, toRefundResource, type Refund, type RefundCommand, type RefundEvent } from '@pay/payments-domain';
import { REFUND_EVENT_PREFIX } from './refund-projection';

/** `refund.succeeded` or `refund.failed` with the refund as data, or null for the request itself. */
export function toRefundIntegrationEvent(event: RefundEvent, stateAfter: Refund, revision: bigint): IntegrationEvent | null {
  if (stateAfter.status === 'none' || event.type === 'RefundRequested') return null;
  const resource = toRefundResource(stateAfter);
  const succeeded = event.type === 'RefundSucceeded';
  return statusChangeEvent(refundStreamId(resource.id), revision, {
    type: succeeded ? 'refund.succeeded' : 'refund.failed',
    createdAt: succeeded ? event.succeededAt : event.failedAt,
    integratorId: stateAfter.terms.integratorId,
    resource,
  });
}

/** The refund aggregate as the runtime knows it (repository, relay). */
export const refundAggregate: AggregateType<RefundCommand, RefundEvent, Refund> = {
  name: 'refund',
  decider: refundDecider,
  streamId: refundStreamId,
  eventTypePrefix: REFUND_EVENT_PREFIX,
  toIntegrationEvent: toRefundIntegrationEvent,
  isInternal: (event) => event.type === 'RefundRequested',
};
