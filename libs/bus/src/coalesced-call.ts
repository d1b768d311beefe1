import { AsyncResource } from 'node:async_hooks';

/** One call's outcome within a batch: its value, or the error that call alone failed with. */
export type Outcome<Result> = { value: Result } | { error: unknown };

export interface CoalescedCallOptions<Item, Result> {
  /** A lone call, made when nothing of its lane is in flight or waiting: as it is, at once. */
  one(item: Item): Promise<Result>;
  /**
   * The calls that queued while one of their lane was in flight, in order (two or more, at most
   * batchMax): each one's outcome, in the same order. A rejection fails every call of the batch.
   */
  many(items: Item[]): Promise<Outcome<Result>[]>;
  batchMax: number;
  /** Calls of different lanes leave apart and concurrently; those of one lane one request at a time (default: one lane). */
  laneOf?: (item: Item) => string;
  /**
   * Once a request of n calls is answered, the lane's next request waits until n/2 calls wait, or this
   * long at most (default 0: it leaves at once). For callers that call again as soon as they are
   * answered, as a gateway's HTTP clients do: without it they fall into a rhythm where a call that finds
   * the lane idle leaves alone, the others queue behind it, and each request comes back as the other's
   * callers return, so requests of 1 and of n − 1 calls alternate, each lone call paying a whole round
   * trip. Waiting for half of the last request's callers evens them out.
   */
  gatherMs?: number;
}

interface Pending<Item, Result> {
  item: Item;
  /** Runs in the caller's async context (its log context and trace): a batch is sent in its first caller's. */
  inContext: <T>(work: () => T) => T;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

interface Lane<Item, Result> {
  inFlight: boolean;
  queue: Pending<Item, Result>[];
  /** A send is due at the end of this turn of the event loop. */
  due: boolean;
  /** Calls in the request last answered. */
  lastSize: number;
  /** Set while the next request waits for half as many calls (gatherMs). */
  gathering: NodeJS.Timeout | undefined;
}

/**
 * A call over the bus, coalescing (group commit, as coalescingSend does for the producer): a call
 * leaves at the end of the event-loop turn it was made in (setImmediate, microseconds), with the
 * others of its lane made in that turn (the continuations of one group commit, one after another:
 * a batch's commands reach the next app as one request, not a lone first one and then the rest); a
 * call made while another of its lane is in flight waits for it, then leaves with every call that
 * queued meanwhile as one batch request. Under load the requests grow instead of multiplying: each
 * request crossing Kafka costs its sender, its server and the broker a produce, a fetch and their
 * decoding, whatever its size. One request of a lane at a time also keeps a lane's calls in the order
 * they were made.
 */
export function coalescedCall<Item, Result>(options: CoalescedCallOptions<Item, Result>): (item: Item) => Promise<Result> {
  const { one, many, batchMax, laneOf = () => '', gatherMs = 0 } = options;
  if (!Number.isInteger(batchMax) || batchMax < 2) throw new RangeError(`batchMax must be an integer of at least 2, got ${batchMax}`);
  if (!Number.isFinite(gatherMs) || gatherMs < 0) throw new RangeError(`gatherMs must be a finite number of at least 0, got ${gatherMs}`);
  const gathered = (lane: Lane<Item, Result>) => 2 * lane.queue.length >= lane.lastSize;
  const lanes = new Map<string, Lane<Item, Result>>();

  const send = (name: string, lane: Lane<Item, Result>): void => {
    if (lane.inFlight) return;
    if (lane.queue.length === 0) {
      lanes.delete(name);
      return;
    }
    const batch = lane.queue.splice(0, batchMax);
    lane.inFlight = true;
    const settled = batch[0]!.inContext(() => (batch.length === 1 ? one(batch[0]!.item).then((value) => [{ value }]) : many(batch.map((pending) => pending.item))));
    settled
      .then((outcomes) => {
        if (outcomes.length !== batch.length) throw new Error(`a batch of ${batch.length} calls answered ${outcomes.length} outcomes`);
        batch.forEach((pending, index) => {
          const outcome = outcomes[index]!;
          if ('error' in outcome) pending.reject(outcome.error);
          else pending.resolve(outcome.value);
        });
      })
      .catch((error: unknown) => {
        for (const pending of batch) pending.reject(error);
      })
      .finally(() => {
        lane.inFlight = false;
        lane.lastSize = batch.length;
        if (gatherMs === 0 || batch.length === 1 || gathered(lane)) return send(name, lane);
        lane.gathering = setTimeout(() => {
          lane.gathering = undefined;
          send(name, lane);
        }, gatherMs);
        // Calls waiting hold their callers; an empty lane's wait holds nothing up.
        lane.gathering.unref();
      });
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      const name = laneOf(item);
      let lane = lanes.get(name);
      if (!lane) lanes.set(name, (lane = { inFlight: false, queue: [], due: false, lastSize: 0, gathering: undefined }));
      lane.queue.push({ item, inContext: AsyncResource.bind(<T>(work: () => T): T => work()), resolve, reject });
      if (lane.due || lane.inFlight) return;
      if (lane.gathering) {
        if (!gathered(lane)) return;
        clearTimeout(lane.gathering);
        lane.gathering = undefined;
      }
      lane.due = true;
      const ready = lane;
      setImmediate(() => {
        ready.due = false;
        send(name, ready);
      });
    });
}
