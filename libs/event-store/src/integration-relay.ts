import type { IntegrationEvent } from '@pay/contracts';
import type { PoolClient } from 'pg';
import type { AggregateType, OwnedState } from './aggregate-repository';
import type { RecordIntegrationEvents } from './bus-handlers';
import type { EventStore, RecordedEvent } from './event-store';
import { forEachWithStateAfter } from './state-after';

/**
 * The relay from an aggregate's streams to the webhooks app (at least once), as a catch-up
 * subscription's handler: its checkpoint only moves once every event of the batch is recorded.
 * Normally each event was recorded already, before the request that caused it was answered; after a
 * crash in between, the relay records it. Recording is idempotent by the stable event id, and the
 * batch goes to the webhooks app whole (its streams read in one call, its events in one request), so
 * that the usual case, nothing to record, costs a few statements per batch rather than two per event.
 */
export const integrationRelay =
  <Command, Event extends { type: string }, State extends OwnedState>(
    store: EventStore,
    type: AggregateType<Command, Event, State>,
    recordEvents: RecordIntegrationEvents,
  ) =>
  async (batch: RecordedEvent[], _tx?: PoolClient): Promise<void> => {
    const integrationEvents: IntegrationEvent[] = [];
    await forEachWithStateAfter<Event, State>(
      store,
      type.decider,
      batch,
      (event, stateAfter, revision) => {
        const integrationEvent = type.toIntegrationEvent(event, stateAfter, revision);
        if (integrationEvent) integrationEvents.push(integrationEvent);
      },
      type.isInternal,
    );
    await recordEvents(integrationEvents);
  };
