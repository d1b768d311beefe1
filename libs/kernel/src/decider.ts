/**
 * An aggregate as a decider: pure `decide` and `evolve`, and the state before any event.
 * Declared once here (type:util) so the domain libraries can type their deciders without depending
 * on the event store.
 */
export interface Decider<Command, Event extends { type: string }, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState: State;
}
