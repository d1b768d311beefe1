import { STALLED_PROCESS_MS, SWEEP_BATCH_MAX, SWEEP_INTERVAL_MS, SWEEP_ROUNDS_MAX, type Clock } from '@pay/kernel';
import type { CatchUpSubscription } from './catch-up-subscription';

/** What an app sweeps: objects past a deadline on the service clock, and processes left half done. */
export interface SweepTasks {
  /** Ids whose deadline has passed at `now`, oldest first, at most `limit` (read from the projection). */
  due(now: Date, limit: number): Promise<string[]>;
  /** Applies the deadline to one object; true when that changed it. */
  applyDeadline(id: string): Promise<boolean>;
  /** Ids whose ledger step started at least `olderThanMs` ago (real time) without an outcome. */
  stalled(olderThanMs: number, limit: number): Promise<string[]>;
  /** Runs the remaining steps of one; answers the status reached. */
  resume(id: string): Promise<{ status: string }>;
}

export interface SweepLog {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface SweeperOptions {
  /** Names the process in the log, e.g. "authorization". */
  process: string;
  /** A step started this long ago without an outcome is taken over (default STALLED_PROCESS_MS). */
  stalledAfterMs?: number;
  intervalMs?: number;
  batchMax?: number;
  /** Bound on the batches one deadline pass applies. */
  roundsMax?: number;
}

/**
 * The background work of an app that owns deadlines and two-step ledger processes: at start, finish
 * whatever a crash left half done (before serving); then every second apply passed deadlines and
 * take over stalled steps. One pass at a time: the timer and a sandbox clock advance never overlap.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly batchMax: number;
  private readonly roundsMax: number;
  private readonly stalledAfterMs: number;

  constructor(
    private readonly tasks: SweepTasks,
    private readonly projection: CatchUpSubscription,
    private readonly clock: Clock,
    private readonly logger: SweepLog,
    private readonly options: SweeperOptions,
  ) {
    this.intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
    this.batchMax = options.batchMax ?? SWEEP_BATCH_MAX;
    this.roundsMax = options.roundsMax ?? SWEEP_ROUNDS_MAX;
    this.stalledAfterMs = options.stalledAfterMs ?? STALLED_PROCESS_MS;
  }

  async start(): Promise<void> {
    await this.projection.catchUp();
    await this.resumeStalled(0);
    this.timer = setInterval(() => void this.serialized(() => this.sweep()), this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Applies every deadline passed on the service clock now (the projection caught up first); answers how many. */
  async applyDeadlines(): Promise<number> {
    await this.projection.catchUp();
    return this.serialized(() => this.applyDue());
  }

  private async sweep(): Promise<void> {
    try {
      await this.applyDue();
    } catch (error) {
      this.logger.error(`deadline sweep failed: ${String(error)}`);
    }
    await this.resumeStalled(this.stalledAfterMs);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.running.then(work, work);
    this.running = run.catch(() => undefined);
    return run;
  }

  private async applyDue(): Promise<number> {
    let applied = 0;
    for (let round = 0; round < this.roundsMax; round++) {
      const due = await this.tasks.due(this.clock.now(), this.batchMax);
      for (const id of due) if (await this.tasks.applyDeadline(id)) applied += 1;
      if (due.length < this.batchMax) break;
      await this.projection.catchUp();
    }
    return applied;
  }

  private async resumeStalled(olderThanMs: number): Promise<void> {
    let stalled: string[];
    try {
      stalled = await this.tasks.stalled(olderThanMs, this.batchMax);
    } catch (error) {
      this.logger.error(`stalled ${this.options.process} sweep failed: ${String(error)}`);
      return;
    }
    for (const id of stalled) {
      try {
        const { status } = await this.tasks.resume(id);
        this.logger.log(`${this.options.process} of ${id} resumed: ${status}`);
      } catch (error) {
        this.logger.warn(`${this.options.process} of ${id} not finished yet: ${String(error)}`);
      }
    }
  }
}
