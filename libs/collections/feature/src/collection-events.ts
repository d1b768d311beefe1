import { type EventType, type IntegrationEvent } from '@pay/contracts';
import { statusChangeEvent, type AggregateType } from '@pay/event-store';
import { collectionDecider, collectionStreamId, toCollectionResource, type Collection, type CollectionCommand, type CollectionEvent } from '@pay/collections-domain';
import { COLLECTION_EVENT_PREFIX } from './collection-projection';

/**
 * The integration event type and when it happened, on the service clock; undefined for domain events
 * integrators do not see (creation, the start of a settlement, the ledger's cash movements).
 */
const changed = (event: CollectionEvent): { type: EventType; at: string } | undefined => {
  switch (event.type) {
    case 'CollectionCollected':
      return { type: 'collection.collected', at: event.collectedAt };
    case 'CollectionDepositUnderReview':
      return { type: 'collection.deposit_under_review', at: event.reviewedAt };
    case 'CollectionSettled':
      return { type: 'settlement.completed', at: event.settledAt };
    case 'CollectionDepositOverdue':
      return { type: 'collection.deposit_overdue', at: event.detectedAt };
    case 'CollectionCreated':
    case 'CollectionSettlementStarted':
    case 'CollectionCashMoved':
      return undefined;
    default: {
      const unknown: never = event;
      throw new Error(`unknown collection event ${JSON.stringify(unknown)}`);
    }
  }
};

/**
 * The integration event for a collection's status change, or null when the domain event is not one
 * (creation, the start of a settlement, a cash movement). `stateAfter` is the collection once `event` is applied;
 * `revision` is the event's place in the stream, which makes the event id stable and orders versions.
 * The resource is shown as of the change (its `deposit.overdue` measured at that time).
 */
export function toIntegrationEvent(event: CollectionEvent, stateAfter: Collection, revision: bigint): IntegrationEvent | null {
  const change = changed(event);
  if (!change || stateAfter.status === 'none') return null;
  const resource = toCollectionResource(stateAfter, new Date(change.at));
  return statusChangeEvent(collectionStreamId(resource.id), revision, { type: change.type, createdAt: change.at, integratorId: stateAfter.terms.integratorId, resource });
}

/** The collection aggregate as the runtime knows it (repository, relay). */
export const collectionAggregate: AggregateType<CollectionCommand, CollectionEvent, Collection> = {
  name: 'collection',
  decider: collectionDecider,
  streamId: collectionStreamId,
  eventTypePrefix: COLLECTION_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'CollectionCreated' || event.type === 'CollectionSettlementStarted' || event.type === 'CollectionCashMoved',
};
