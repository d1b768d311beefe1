import type { MessageBus } from '@pay/bus';
import { collectionDecider, type Collection, type CollectionEvent } from '@pay/collections-domain';
import type { EventStore, RecordedEvent } from '@pay/event-store';
import { toIntegrationEvent } from './collection-events';

/**
 * The relay from the collection streams to the webhooks app (at least once): a catch-up subscription
 * whose checkpoint only moves once every event of the batch is recorded. Normally each event was
 * recorded already, before the request that caused it was answered; after a crash in between, the
 * relay records it. Recording is idempotent by the stable event id.
 */
export async function relayCollectionEvents(store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> {
  const histories = new Map<string, RecordedEvent[]>();
  for (const recorded of batch) {
    const event = recorded.data as CollectionEvent;
    if (event.type === 'CollectionCreated' || event.type === 'CollectionSettlementStarted' || event.type === 'CollectionCashMoved') continue;
    let history = histories.get(recorded.streamId);
    if (!history) {
      history = await store.readStream(recorded.streamId);
      histories.set(recorded.streamId, history);
    }
    const stateAfter = history
      .filter((r) => r.revision <= recorded.revision)
      .reduce<Collection>((state, r) => collectionDecider.evolve(state, r.data as CollectionEvent), collectionDecider.initialState);
    const integrationEvent = toIntegrationEvent(event, stateAfter, recorded.revision);
    if (integrationEvent) await bus.request('events.record', integrationEvent);
  }
}
