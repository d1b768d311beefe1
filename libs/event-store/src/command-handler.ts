import { eventStoreAppendConflictsTotal, eventStoreAppendsTotal, record } from '@pay/observability';
import { COMMAND_RETRIES_MAX, type Decider } from '@pay/kernel';
import { type EventStore, type RecordedEvent, WrongExpectedRevisionError } from './event-store';

export type { Decider } from '@pay/kernel';

/** An aggregate's state as of a revision of its stream (-1 when the stream does not exist). */
export interface Loaded<State> {
  state: State;
  revision: bigint;
}

export interface Handled<Event, State> extends Loaded<State> {
  /** The events this command appended (empty when the decider decided nothing). */
  events: Event[];
}

export const NO_STREAM_REVISION = -1n;

export interface CommandOptions<State> {
  /** The command creates the stream: first tried without reading it (one round trip less). */
  expectNew?: boolean;
  /** A state the caller has just read: first tried on it rather than reading the stream again. */
  from?: Loaded<State>;
  /**
   * `from` may be behind the stream (a state remembered from an earlier command): a decision on it
   * that rejects the command or decides nothing is taken again on a fresh read. (One that appends is
   * safe as it is: the expected revision refuses an append on a state the stream has moved past.)
   */
  stale?: boolean;
  retriesMax?: number;
}

/** Folds a stream's recorded events into the aggregate's state. */
export const fold = <Event extends { type: string }, State>(decider: Decider<unknown, Event, State>, recorded: RecordedEvent[]): State =>
  recorded.reduce((state, event) => decider.evolve(state, event.data as Event), decider.initialState);

/** Reads the stream once: the folded state and the revision it is at. */
export async function loadAggregate<Event extends { type: string }, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<unknown, Event, State>,
): Promise<Loaded<State>> {
  const recorded = await store.readStream(streamId);
  return { state: fold(decider, recorded), revision: recorded.at(-1)?.revision ?? NO_STREAM_REVISION };
}

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
  { expectNew = false, from, stale = false, retriesMax = COMMAND_RETRIES_MAX }: CommandOptions<State> = {},
): Promise<Handled<Event, State>> {
  const assumed = from ?? (expectNew ? { state: decider.initialState, revision: NO_STREAM_REVISION } : undefined);
  for (let attempt = 1; ; attempt++) {
    // A state known without reading (new stream, or just read by the caller) is tried first; if the
    // stream has moved on, the append fails and the normal path takes over.
    const onAssumed = attempt === 1 && assumed !== undefined;
    const current = onAssumed ? assumed : await loadAggregate(store, streamId, decider as Decider<unknown, Event, State>);
    const mayBeBehind = onAssumed && stale;
    let events: Event[];
    try {
      events = decider.decide(command, current.state);
    } catch (error) {
      if (mayBeBehind) continue;
      throw error;
    }
    if (events.length === 0) {
      if (mayBeBehind) continue;
      return { state: current.state, events, revision: current.revision };
    }
    try {
      const appended = await store.appendToStream(
        streamId,
        events.map((event) => ({ type: event.type, data: event })),
        { expectedRevision: current.revision === NO_STREAM_REVISION ? 'no_stream' : current.revision },
      );
      record(() => eventStoreAppendsTotal.inc());
      return { state: events.reduce(decider.evolve, current.state), events, revision: appended.nextExpectedRevision };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) record(() => eventStoreAppendConflictsTotal.inc());
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= retriesMax) throw error;
    }
  }
}
