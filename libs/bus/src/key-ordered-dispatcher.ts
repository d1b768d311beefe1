/**
 * A request topic's messages handled concurrently without giving up Kafka's order where it matters:
 * messages with one key (one entity, REQUEST_MESSAGE_KEY) run one after another in offset order,
 * messages with other keys at once. Offsets are committed only up to the oldest message not yet
 * answered, so a crash redelivers what was in flight rather than losing it.
 *
 * Pure bookkeeping (no Kafka in here): the server hands each message over as kafkajs delivers it and
 * asks for the offsets to commit.
 */

/** A message taken from a partition, as the dispatcher needs it (kafkajs' offsets are decimal strings). */
export interface PartitionMessage {
  topic: string;
  partition: number;
  offset: string;
  /** The message key; null (no entity) runs without order. */
  key: string | null;
}

/** The next offset to read, per partition: what a consumer commits. */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

export interface KeyOrderedDispatcherOptions {
  /** Messages handled and not yet answered, at most (waitForRoom() holds the consumer past it). */
  inFlightMax: number;
  /** Messages tracked and not yet committable (answered behind an older one still in flight), at most. */
  uncommittedMax: number;
  /** Called when a message is answered: the committable offsets may have moved. */
  onAnswered?: () => void;
  /** A handler that rejected (the work should answer, never throw): logged; its message counts as answered. */
  onError?: (error: unknown, message: PartitionMessage) => void;
}

/** accepted: it will run; redelivered: it was accepted here before (refetched after a rebalance), skipped; refused: closing. */
export type DispatchOutcome = 'accepted' | 'redelivered' | 'refused';

/** One partition's messages since its last committable point, in offset order. */
class PartitionState {
  /** Offsets accepted and not yet committable, oldest first, each with whether it is answered. */
  readonly tracked: { offset: bigint; answered: boolean }[] = [];
  /** The offset after the last accepted message (-1n: none accepted yet). */
  next = -1n;
  /** The offset last handed out for committing. */
  committed = -1n;

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  /** The next offset to read once everything answered is committed: the oldest unanswered, else the next. */
  committable(): bigint {
    return this.tracked[0]?.offset ?? this.next;
  }

  /** Drops the answered messages at the head: they are behind the committable point. */
  advance(): number {
    let dropped = 0;
    while (this.tracked[0]?.answered) {
      this.tracked.shift();
      dropped += 1;
    }
    return dropped;
  }
}

const partitionId = (topic: string, partition: number) => `${topic}|${partition}`;

export class KeyOrderedDispatcher {
  private readonly partitions = new Map<string, PartitionState>();
  /** The tail of each key's chain: the promise of its last message accepted. */
  private readonly chains = new Map<string, Promise<void>>();
  private running = 0;
  private uncommitted = 0;
  private accepting = true;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly options: KeyOrderedDispatcherOptions) {
    if (!Number.isInteger(options.inFlightMax) || options.inFlightMax < 1) throw new Error(`inFlightMax must be a positive integer, got ${options.inFlightMax}`);
    if (!Number.isInteger(options.uncommittedMax) || options.uncommittedMax < options.inFlightMax) {
      throw new Error(`uncommittedMax must be an integer at least inFlightMax (${options.inFlightMax}), got ${options.uncommittedMax}`);
    }
  }

  /** Messages accepted and not yet answered. */
  get inFlight(): number {
    return this.running;
  }

  /** Whether another message may be accepted now without passing a bound. */
  hasRoom(): boolean {
    return this.running < this.options.inFlightMax && this.uncommitted < this.options.uncommittedMax;
  }

  /** Resolves once hasRoom() (or once closing: a refused message takes no room). */
  waitForRoom(): Promise<void> {
    if (this.hasRoom() || !this.accepting) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Takes a message in delivery order: `work` runs after the earlier messages of its key on its
   * partition have been answered. Call waitForRoom() first: past the bounds this throws.
   */
  dispatch(message: PartitionMessage, work: () => Promise<void>): DispatchOutcome {
    if (!this.accepting) return 'refused';
    const offset = BigInt(message.offset);
    const id = partitionId(message.topic, message.partition);
    let state = this.partitions.get(id);
    if (!state) this.partitions.set(id, (state = new PartitionState(message.topic, message.partition)));
    if (offset < state.next) return 'redelivered';
    if (!this.hasRoom()) throw new Error(`dispatch past the bounds (${this.running} in flight, ${this.uncommitted} uncommitted): wait for room first`);
    const entry = { offset, answered: false };
    state.tracked.push(entry);
    state.next = offset + 1n;
    this.running += 1;
    this.uncommitted += 1;
    const owner = state;
    const chainKey = message.key === null ? undefined : `${id}|${message.key}`;
    const previous = chainKey === undefined ? undefined : this.chains.get(chainKey);
    const run = (previous ?? Promise.resolve()).then(() => this.run(message, work)).then(() => this.answered(owner, entry));
    if (chainKey !== undefined) {
      this.chains.set(chainKey, run);
      void run.then(() => {
        if (this.chains.get(chainKey) === run) this.chains.delete(chainKey);
      });
    }
    return 'accepted';
  }

  /**
   * The offsets to commit: each partition whose committable point moved since the last call. A failed
   * commit is harmless: a later call covers it (callers may hand the same offsets again via resend).
   */
  offsetsToCommit(): PartitionOffset[] {
    const offsets: PartitionOffset[] = [];
    for (const state of this.partitions.values()) {
      const offset = state.committable();
      if (offset >= 0n && offset !== state.committed) {
        state.committed = offset;
        offsets.push({ topic: state.topic, partition: state.partition, offset: offset.toString() });
      }
    }
    return offsets;
  }

  /** A commit of these offsets failed: hand them out again next time. */
  commitFailed(offsets: readonly PartitionOffset[]): void {
    for (const { topic, partition, offset } of offsets) {
      const state = this.partitions.get(partitionId(topic, partition));
      if (state && state.committed === BigInt(offset)) state.committed = -1n;
    }
  }

  /**
   * After a rebalance: the partitions this member holds now. The others are forgotten (their messages in
   * flight still run and answer, but are no longer committed here: their new owner reads from the last
   * commit). With `sameMember` false (a new member id: the group may have given them to someone else in
   * between) every partition is forgotten.
   */
  assigned(assignment: Readonly<Record<string, readonly number[]>>, sameMember: boolean): void {
    for (const [id, state] of this.partitions) {
      if (sameMember && assignment[state.topic]?.includes(state.partition)) continue;
      this.uncommitted -= state.tracked.length;
      this.partitions.delete(id);
    }
    this.wake();
  }

  /** Refuses every message from now on (closing): what is in flight still runs. */
  stopAccepting(): void {
    this.accepting = false;
    this.wake();
  }

  private async run(message: PartitionMessage, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.options.onError?.(error, message);
    }
  }

  private answered(state: PartitionState, entry: { answered: boolean }): void {
    entry.answered = true;
    this.running -= 1;
    // A forgotten partition's messages no longer count as uncommitted (assigned() took them off).
    if (this.partitions.get(partitionId(state.topic, state.partition)) === state) this.uncommitted -= state.advance();
    this.wake();
    this.options.onAnswered?.();
  }

  private wake(): void {
    while (this.waiters.length > 0 && (this.hasRoom() || !this.accepting)) this.waiters.shift()!();
  }
}
