import { ServiceError } from '@pay/contracts';
import { currentTraceContext, runOutsideLogContext, SpanKind, withSpan, type TraceContext } from '@pay/observability';

/** A caller waiting for its item to be written, with the two ends of its promise. */
export interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
  /** The caller's trace, when tracing: the batch's span is a child of the first caller's and links the others'. */
  trace?: TraceContext;
}

export interface GroupCommitLimits {
  /** What is written, in the busy error and the batch's span, e.g. `ledger transfer`. */
  name: string;
  /** Most items one write takes. */
  batchSizeMax: number;
  /** Most items waiting for a write: beyond it, submit refuses at once (the callers' own retries take over). */
  queueLengthMax: number;
}

/**
 * Group commit: one write at a time; what arrives while it runs waits, and the next write takes up to
 * `batchSizeMax` of it as soon as the current one is done, in arrival order. Nothing is delayed by a
 * timer: when no write runs, the first item starts one at the end of the current event-loop turn
 * (setImmediate, microseconds: items submitted in the same turn share it), so a lone item is not held
 * back. `write` settles every caller of its batch; should it throw instead, the callers it left
 * unsettled are rejected with its error.
 */
export class GroupCommit<I, O> {
  private readonly queue: Waiting<I, O>[] = [];
  private writing = false;

  constructor(
    private readonly write: (batch: readonly Waiting<I, O>[]) => Promise<void>,
    private readonly limits: GroupCommitLimits,
  ) {
    if (!(limits.batchSizeMax >= 1 && limits.queueLengthMax >= limits.batchSizeMax)) throw new Error(`${limits.name} group commit: 1 <= batchSizeMax <= queueLengthMax`);
  }

  submit(item: I): Promise<O> {
    if (this.queue.length >= this.limits.queueLengthMax) {
      return Promise.reject(new ServiceError('service_unavailable', `${this.limits.name} busy: ${this.queue.length} waiting; retry later`));
    }
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject, trace: currentTraceContext() });
      if (!this.writing) {
        this.writing = true;
        // The batch belongs to no single caller: its work runs outside the submitter's log context and trace
        // (its own span, below, names every caller's trace).
        setImmediate(() => runOutsideLogContext(() => void this.drain()));
      }
    });
  }

  /** Items waiting for a write (not counting the one being written). */
  get waiting(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.limits.batchSizeMax);
        try {
          // One span for the batch's transaction: in the first caller's trace, linked from the others'.
          await withSpan(
            `${this.limits.name} batch`,
            { kind: SpanKind.INTERNAL, parent: batch[0]!.trace, links: batch.slice(1).map((waiting) => waiting.trace), attributes: { 'pay.batch_size': batch.length } },
            () => this.write(batch),
          );
        } catch (error) {
          // A promise settles once: the callers `write` already answered keep their answer.
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
