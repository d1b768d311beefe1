import type { Decider } from '@pay/kernel';

/**
 * given / when / then for deciders: fold the given events with `evolve`, run `decide`, compare the
 * events (or the error code) with what the rule says.
 */
export const deciderSpec = <Command, Event extends { type: string }, State>(decider: Decider<Command, Event, State>) => ({
  given: (events: Event[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState));
      return {
        then: (expected: Event[]) => expect(run()).toEqual(expected),
        thenFails: (code: string) => {
          let caught: unknown;
          try {
            run();
          } catch (error) {
            caught = error;
          }
          expect(caught).toMatchObject({ code });
        },
      };
    },
  }),
});
