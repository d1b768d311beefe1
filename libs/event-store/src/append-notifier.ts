import type { Pool } from 'pg';
import { APPEND_VISIBILITY_POLL_MS, APPEND_VISIBILITY_WAIT_MS_MAX } from '@pay/kernel';
import type { AppendListener } from './event-store';

/**
 * In-process `onAppended`. readAll only returns transactions older than every running one, so a
 * listener called right after commit could read nothing while an older writer is still open, and
 * then sleep a whole poll interval. Listeners are therefore called once the appended transaction is
 * below the snapshot xmin: one small query per burst of appends (none while nobody listens), with
 * the types appended in the burst, so that a subscription wakes only for the events it reads.
 */
export class AppendNotifier {
  private readonly listeners = new Set<AppendListener>();
  private awaitedCommit = -1n;
  /**
   * The types appended since the burst began. Cleared only when the burst ends: an append whose
   * transaction id is below the awaited one may report during a wait, and is readable with it.
   */
  private types = new Set<string>();
  private watching = false;
  private closed = false;

  constructor(private readonly pool: Pool) {}

  add(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /** `commit`: the appending transaction id; `events`: what it appended. */
  appended(commit: bigint, events: readonly { type: string }[]): void {
    if (this.listeners.size === 0 || this.closed) return;
    if (commit > this.awaitedCommit) this.awaitedCommit = commit;
    for (const { type } of events) this.types.add(type);
    if (!this.watching) void this.watch();
  }

  private async watch(): Promise<void> {
    this.watching = true;
    const deadline = Date.now() + APPEND_VISIBILITY_WAIT_MS_MAX;
    try {
      for (;;) {
        const target = this.awaitedCommit;
        const readable = (await this.oldestRunning()) > target;
        if (readable || Date.now() > deadline) {
          this.notify(this.types);
          // Appends that arrived meanwhile are awaited in the same loop.
          if (this.awaitedCommit === target || Date.now() > deadline) return;
        } else {
          await new Promise((resolve) => setTimeout(resolve, APPEND_VISIBILITY_POLL_MS));
        }
        if (this.closed) return;
      }
    } catch {
      // The pool is gone or failing: notify anyway, the subscriptions' polling covers the rest.
      this.notify(undefined);
    } finally {
      // No await since the last notify: every type gathered was in it.
      this.types = new Set();
      this.watching = false;
    }
  }

  private async oldestRunning(): Promise<bigint> {
    const { rows } = await this.pool.query<{ xmin: string }>({
      name: 'es_snapshot_xmin',
      text: 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
    });
    return BigInt(rows[0]?.xmin ?? 0);
  }

  private notify(types: ReadonlySet<string> | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(types);
      } catch {
        // A listener's failure is its own; the append has committed.
      }
    }
  }
}
