import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';

/**
 * Plumbing for model-based property tests of deciders: a clock that only moves forward (in random
 * steps, and exactly to, just before and just past a deadline), the answer a model expects of a
 * command, and the check of the decider's actual answer against it. The models themselves live
 * beside each decider's spec: they are written from the specification, not from the code.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** How the service clock moves before a command: not at all, a little, a lot, or to a deadline (-1 ms, exactly, +1 ms). */
export type Tick = { kind: 'same' } | { kind: 'after'; ms: number } | { kind: 'deadline'; offsetMs: -1 | 0 | 1 };

export const ticks: fc.Arbitrary<Tick> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Tick>({ kind: 'same' }) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 10 * MINUTE_MS }).map<Tick>((ms) => ({ kind: 'after', ms })) },
  { weight: 1, arbitrary: fc.integer({ min: HOUR_MS, max: 40 * DAY_MS }).map<Tick>((ms) => ({ kind: 'after', ms })) },
  { weight: 3, arbitrary: fc.constantFrom<-1 | 0 | 1>(-1, 0, 1).map<Tick>((offsetMs) => ({ kind: 'deadline', offsetMs })) },
);

/** The clock after a tick; never earlier than it was (a deadline already behind us leaves it where it is). */
export const advanceClock = (nowMs: number, tick: Tick, deadlineMs: number | null): number => {
  const target = tick.kind === 'same' ? nowMs : tick.kind === 'after' ? nowMs + tick.ms : deadlineMs === null ? nowMs + 1 : deadlineMs + tick.offsetMs;
  return Math.max(nowMs, target);
};

/**
 * What the model expects of a command:
 * - `accept`: events are decided, and folding them gives a state that agrees with `next`;
 * - `refuse`: a typed error carrying the contract's `code` (one of them, where the specification
 *   leaves the order of two checks open), nothing decided;
 * - `noop`: nothing decided and no error (a retry, a replay, a sweep with nothing due);
 * - `unchanged`: outside what the specification says (an internal step out of order): an error or
 *   no events, but never a change.
 */
export type Verdict<Model> = { kind: 'accept'; next: Model } | { kind: 'refuse'; code: string | readonly string[] } | { kind: 'noop' } | { kind: 'unchanged' };

export type Attempt<Event> = { ok: true; events: Event[] } | { ok: false; error: unknown };

export const attempt = <Event>(decide: () => Event[]): Attempt<Event> => {
  try {
    return { ok: true, events: decide() };
  } catch (error) {
    return { ok: false, error };
  }
};

const describeAttempt = <Event>(result: Attempt<Event>): string =>
  result.ok ? `events ${JSON.stringify(result.events)}` : `error ${(result.error as { code?: string }).code ?? ''} ${String(result.error)}`;

/** Fails (with what was expected and what happened) when the decider's answer does not fit the verdict. */
export const checkVerdict = <Model, Event>(verdict: Verdict<Model>, result: Attempt<Event>, context: () => string): void => {
  const fail = (expected: string) => {
    throw new Error(`${context()}\n  the model expects ${expected}\n  the decider answered ${describeAttempt(result)}`);
  };
  switch (verdict.kind) {
    case 'accept':
      if (!result.ok || result.events.length === 0) fail('events');
      return;
    case 'refuse': {
      const codes: readonly string[] = typeof verdict.code === 'string' ? [verdict.code] : verdict.code;
      if (result.ok || !codes.includes((result.error as { code?: string }).code ?? '')) fail(`a refusal with ${codes.join(' or ')}`);
      return;
    }
    case 'noop':
      if (!result.ok || result.events.length > 0) fail('no events and no error');
      return;
    case 'unchanged':
      if (result.ok && result.events.length > 0) fail('an error or no events');
      return;
  }
};

/** `expect(actual).toEqual(expected)`, with a fast path: thousands of steps compare equal values. */
export const expectEqual = <T>(actual: T, expected: T): void => {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
};

/** Folding the same events twice gives equal states, and the state kept step by step is that fold. */
export const expectDeterministicFold = <State, Event>(evolve: (state: State, event: Event) => State, initial: State, events: readonly Event[], stepwise: State): void => {
  const once = events.reduce(evolve, initial);
  const twice = events.reduce(evolve, initial);
  expectEqual(twice, once);
  expectEqual(stepwise, once);
};

export const isNonNegativeInteger = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

/** Freezes a value and everything it holds: an evolve or decide that mutates its input then throws. */
export const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
};
