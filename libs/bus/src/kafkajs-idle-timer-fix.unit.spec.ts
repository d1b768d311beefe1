import { fixKafkajsIdleTimer, KAFKAJS_VERSION_FIXED } from './kafkajs-idle-timer-fix';

// The internals the fix replaces a method of, reached the way the fix reaches them.
interface RequestQueue {
  pending: unknown[];
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}
interface Entry {
  correlationId: number;
  apiKey: number;
  apiName: string;
  apiVersion: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueueClass = require('kafkajs/src/network/requestQueue') as new (options: object) => RequestQueue;
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function queue(maxInFlightRequests: number | null = null): RequestQueue {
  return new RequestQueueClass({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'localhost:9092', logger: quiet });
}

/** Pushes a Fetch-like request; `sent` records its correlation id once kafkajs sends it. */
function push(subject: RequestQueue, correlationId: number, sent: number[]): void {
  const entry: Entry = { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined };
  subject.push({ entry, expectResponse: true, sendRequest: () => sent.push(correlationId) });
}

/** Whether a look at the held-back requests is scheduled (kafkajs keeps its timer there). */
const checkScheduled = (subject: RequestQueue): boolean => subject.throttleCheckTimeoutId !== null;

const answer = (subject: RequestQueue, correlationId: number) => subject.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

/** A queue with one slot in flight, given two requests: 1 is sent, 2 is held back by the in-flight limit. */
function secondHeldByInFlightLimit(): { subject: RequestQueue; sent: number[] } {
  const subject = queue(1);
  const sent: number[] = [];
  push(subject, 1, sent);
  push(subject, 2, sent);
  return { subject, sent };
}

describe('kafkajs RequestQueue, with its idle timer fixed', () => {
  beforeAll(() => fixKafkajsIdleTimer());
  afterEach(() => jest.useRealTimers());

  it('is the kafkajs release the fix was written for (another one: check whether its RequestQueue still re-arms a timer when idle)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('kafkajs/package.json') as { version: string }).version).toBe(KAFKAJS_VERSION_FIXED);
  });

  it('leaves no timer behind once a request is answered and nothing waits (kafkajs 2.2.4 re-armed one every millisecond)', () => {
    const subject = queue();
    const sent: number[] = [];
    push(subject, 1, sent);
    answer(subject, 1);
    expect(sent).toEqual([1]);
    expect(checkScheduled(subject)).toBe(false);
    subject.destroy();
  });

  it('sends a request held back by a broker throttle once the throttle ends', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const subject = queue();
    const sent: number[] = [];
    subject.maybeThrottle(200);
    push(subject, 1, sent);
    expect(sent).toEqual([]);
    expect(checkScheduled(subject)).toBe(true);
    jest.advanceTimersByTime(199);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([1]);
    expect(subject.pending).toHaveLength(0);
    expect(checkScheduled(subject)).toBe(false);
    subject.destroy();
  });

  it('sends a request held back by the in-flight limit when an answer frees a slot, and stops looking once none waits', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { subject, sent } = secondHeldByInFlightLimit();
    expect(sent).toEqual([1]);
    answer(subject, 1);
    expect(sent).toEqual([1, 2]);
    answer(subject, 2);
    // The look scheduled while request 2 waited runs once more, finds nothing, and schedules no other.
    jest.advanceTimersByTime(10);
    expect(checkScheduled(subject)).toBe(false);
    subject.destroy();
  });

  it('keeps looking at a held-back request until it can be sent, should the answer that frees its slot not come', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { subject, sent } = secondHeldByInFlightLimit();
    expect(checkScheduled(subject)).toBe(true);
    jest.advanceTimersByTime(50);
    expect(sent).toEqual([1]);
    // The slot frees without an answer (kafkajs drops a timed-out request from inflight this way).
    (subject as unknown as { inflight: Map<number, unknown> }).inflight.clear();
    jest.advanceTimersByTime(10);
    expect(sent).toEqual([1, 2]);
    subject.destroy();
  });
});
