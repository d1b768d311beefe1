import type { Decider } from './command-handler';
import type { EventStore, RecordedEvent } from './event-store';

/**
 * Visits each event of a subscription batch with its aggregate's state right after it: what a relay
 * needs to describe a change as of that moment, even when the stream has moved on since. Each stream
 * is read once per batch; `skip` spares reading streams for events the visitor would ignore.
 */
export async function forEachWithStateAfter<Event extends { type: string }, State>(
  store: EventStore,
  decider: Decider<unknown, Event, State>,
  batch: readonly RecordedEvent[],
  visit: (event: Event, stateAfter: State, revision: bigint) => Promise<void>,
  skip: (event: Event) => boolean = () => false,
): Promise<void> {
  const histories = new Map<string, RecordedEvent[]>();
  for (const recorded of batch) {
    const event = recorded.data as Event;
    if (skip(event)) continue;
    let history = histories.get(recorded.streamId);
    if (!history) {
      history = await store.readStream(recorded.streamId);
      histories.set(recorded.streamId, history);
    }
    const stateAfter = history
      .filter((r) => r.revision <= recorded.revision)
      .reduce((state, r) => decider.evolve(state, r.data as Event), decider.initialState);
    await visit(event, stateAfter, recorded.revision);
  }
}
