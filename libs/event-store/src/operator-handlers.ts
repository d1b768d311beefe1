import { notFound, type ParkedEvent, type ParkedReplayed, type ReplayParked, type SubscribingApp, type SubscriptionStatus } from '@pay/contracts';
import type { Pool } from 'pg';
import { PARKED_LIST_MAX, PARKED_REPLAY_MAX } from '@pay/kernel';
import type { CatchUpSubscription } from './catch-up-subscription';
import type { Handlers } from './bus-handlers';
import { listParkedEvents } from './parked-events';

/**
 * The operator's view of an app's subscriptions (libs/contracts operations.ts): their checkpoints and
 * lag, the events they parked, and the replay of those.
 */
export class OperatorHandlers {
  private readonly byId: ReadonlyMap<string, CatchUpSubscription>;

  constructor(
    private readonly app: SubscribingApp,
    subscriptions: readonly CatchUpSubscription[],
    private readonly pool: Pool,
  ) {
    this.byId = new Map(subscriptions.map((subscription) => [subscription.subscriptionId, subscription]));
  }

  /** The handlers by topic, for the app's bus. */
  topics(): Handlers {
    const { app } = this;
    return {
      [`${app}.operations.subscriptions`]: () => this.subscriptions(),
      [`${app}.operations.parked-events`]: ({ limit }: { limit: number }) => this.parkedEvents(limit),
      [`${app}.operations.replay-parked`]: (request: ReplayParked) => this.replay(request),
    } as Handlers;
  }

  async subscriptions(): Promise<{ items: SubscriptionStatus[] }> {
    const states = await Promise.all([...this.byId.values()].map((subscription) => subscription.status()));
    return {
      items: states.map(({ subscriptionId, checkpoint, lagSeconds, parkedEvents, running }) => ({
        subscriptionId,
        app: this.app,
        checkpoint: checkpoint && String(checkpoint.position.commit),
        checkpointUpdatedAt: checkpoint && checkpoint.updatedAt.toISOString(),
        lagSeconds,
        parkedEvents,
        running,
      })),
    };
  }

  async parkedEvents(limit: number): Promise<{ items: ParkedEvent[] }> {
    const rows = await listParkedEvents(this.pool, [...this.byId.keys()], Math.min(Math.max(1, Math.trunc(limit) || 1), PARKED_LIST_MAX));
    return { items: rows.map((row) => ({ ...row, parkedAt: row.parkedAt.toISOString() })) };
  }

  /** One parked event (both fields), those of one subscription, or every one of the app (neither), oldest first. */
  async replay({ subscriptionId, eventId }: ReplayParked): Promise<ParkedReplayed> {
    if (subscriptionId !== undefined && !this.byId.has(subscriptionId)) throw notFound('subscription', subscriptionId);
    const ids = subscriptionId === undefined ? [...this.byId.keys()] : [subscriptionId];
    const parked = await listParkedEvents(this.pool, ids, PARKED_REPLAY_MAX, eventId);
    if (eventId !== undefined && parked.length === 0) throw notFound('parked event', eventId);
    const result: ParkedReplayed = { replayed: 0, failed: [] };
    for (const row of parked) {
      const replayed = await this.byId.get(row.subscriptionId)!.replayParked(row.eventId);
      if (replayed.outcome === 'replayed') result.replayed += 1;
      if (replayed.outcome === 'failed') result.failed.push({ subscriptionId: row.subscriptionId, eventId: row.eventId, error: replayed.error });
    }
    return result;
  }
}
