import { eventStoreAppendConflictsTotal, eventStoreAppendsTotal, record } from '@pay/observability';
import { type EventStore, type RecordedEvent, WrongExpectedRevisionError } from './event-store';

/** An aggregate as a decider (STYLE.md): pure decide and evolve, and the state before any event. */
export interface Decider<Command, Event extends { type: string }, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState: State;
}

export interface Handled<Event, State> {
  state: State;
  /** The events this command appended (empty when the decider decided nothing). */
  events: Event[];
  revision: bigint;
}

export const COMMAND_RETRIES_MAX = 5;
/**
 * A stream that many requests write at once (a payment whose refunds run concurrently): each conflict
 * lets one writer through, so up to one retry per concurrent writer.
 */
export const CONTENDED_COMMAND_RETRIES_MAX = 64;

/** Folds a stream's recorded events into the aggregate's state. */
export const fold = <Event extends { type: string }, State>(decider: Decider<unknown, Event, State>, recorded: RecordedEvent[]): State =>
  recorded.reduce((state, event) => decider.evolve(state, event.data as Event), decider.initialState);

/**
 * Reads the stream, folds evolve, decides, and appends with the expected revision (no stream when
 * creating). A concurrent writer makes the append fail; the command is then decided again on the new
 * state, a bounded number of times. Every append and every conflict is counted (the only path that
 * appends, whichever adapter is behind the port).
 */
export async function handleCommand<Command, Event extends { type: string }, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  { expectNew = false, retriesMax = COMMAND_RETRIES_MAX }: { expectNew?: boolean; retriesMax?: number } = {},
): Promise<Handled<Event, State>> {
  for (let attempt = 1; ; attempt++) {
    // A command that creates its stream is first tried without reading it (one round trip less);
    // if the stream exists after all, the append fails and the normal path takes over.
    const recorded = expectNew && attempt === 1 ? [] : await store.readStream(streamId);
    const state = fold(decider as Decider<unknown, Event, State>, recorded);
    const events = decider.decide(command, state);
    const current = recorded.length === 0 ? undefined : recorded[recorded.length - 1]!.revision;
    if (events.length === 0) return { state, events, revision: current ?? -1n };
    try {
      const appended = await store.appendToStream(
        streamId,
        events.map((event) => ({ type: event.type, data: event })),
        { expectedRevision: current ?? 'no_stream' },
      );
      record(() => eventStoreAppendsTotal.inc());
      return { state: events.reduce(decider.evolve, state), events, revision: appended.nextExpectedRevision };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) record(() => eventStoreAppendConflictsTotal.inc());
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= retriesMax) throw error;
    }
  }
}
