import type { PoolClient } from 'pg';
import type { AggregateType, OwnedState, RecordIntegrationEvent } from './aggregate-repository';
import type { EventStore, RecordedEvent } from './event-store';
import { forEachWithStateAfter } from './state-after';

/**
 * The relay from an aggregate's streams to the webhooks app (at least once), as a catch-up
 * subscription's handler: its checkpoint only moves once every event of the batch is recorded.
 * Normally each event was recorded already, before the request that caused it was answered; after a
 * crash in between, the relay records it. Recording is idempotent by the stable event id.
 */
export const integrationRelay =
  <Command, Event extends { type: string }, State extends OwnedState>(
    store: EventStore,
    type: AggregateType<Command, Event, State>,
    recordEvent: RecordIntegrationEvent,
  ) =>
  (batch: RecordedEvent[], _tx?: PoolClient): Promise<void> =>
    forEachWithStateAfter<Event, State>(
      store,
      type.decider,
      batch,
      async (event, stateAfter, revision) => {
        const integrationEvent = type.toIntegrationEvent(event, stateAfter, revision);
        if (integrationEvent) await recordEvent(integrationEvent);
      },
      type.isInternal,
    );
