import type { Decider } from './command-handler';
import type { EventStore, RecordedEvent } from './event-store';

/**
 * Visits each event of a subscription batch with its aggregate's state right after it: what a relay
 * needs to describe a change as of that moment, even when the stream has moved on since. The batch's
 * streams are read in one call; `skip` spares reading streams for events the visitor would ignore.
 */
export async function forEachWithStateAfter<Event extends { type: string }, State>(
  store: EventStore,
  decider: Decider<unknown, Event, State>,
  batch: readonly RecordedEvent[],
  visit: (event: Event, stateAfter: State, revision: bigint) => void,
  skip: (event: Event) => boolean = () => false,
): Promise<void> {
  const visited = batch.filter((recorded) => !skip(recorded.data as Event));
  if (visited.length === 0) return;
  const histories = await store.readStreams([...new Set(visited.map((recorded) => recorded.streamId))]);
  for (const recorded of visited) {
    const stateAfter = histories
      .get(recorded.streamId)!
      .filter((r) => r.revision <= recorded.revision)
      .reduce((state, r) => decider.evolve(state, r.data as Event), decider.initialState);
    visit(recorded.data as Event, stateAfter, recorded.revision);
  }
}
