import { statusChangeEvents, type AggregateType } from '@pay/event-store';
import { collectionDecider, collectionStreamId, toCollectionResource, type Collection, type CollectionCommand, type CollectionEvent } from '@pay/collections-domain';
import { COLLECTION_EVENT_PREFIX } from './collection-projection';

/**
 * The integration event for a collection's status change, or null when the domain event is not one
 * (creation, the start of a settlement, a cash movement). The resource is shown as of the change
 * (its `deposit.overdue` measured at that time).
 */
export const toIntegrationEvent = statusChangeEvents<CollectionEvent, Collection>(collectionStreamId, toCollectionResource, {
  CollectionCreated: null,
  CollectionCollected: { type: 'collection.collected', at: (event) => event.collectedAt },
  CollectionDepositUnderReview: { type: 'collection.deposit_under_review', at: (event) => event.reviewedAt },
  CollectionSettlementStarted: null,
  CollectionCashMoved: null,
  CollectionSettled: { type: 'settlement.completed', at: (event) => event.settledAt },
  CollectionDepositOverdue: { type: 'collection.deposit_overdue', at: (event) => event.detectedAt },
});

/** The collection aggregate as the runtime knows it (repository, relay). */
export const collectionAggregate: AggregateType<CollectionCommand, CollectionEvent, Collection> = {
  name: 'collection',
  decider: collectionDecider,
  streamId: collectionStreamId,
  eventTypePrefix: COLLECTION_EVENT_PREFIX,
  toIntegrationEvent,
  isInternal: (event) => event.type === 'CollectionCreated' || event.type === 'CollectionSettlementStarted' || event.type === 'CollectionCashMoved',
};
