import type { ListResource } from './resources';

/**
 * The operator's view of what runs in the background: each app that keeps catch-up subscriptions
 * answers for its own (checkpoint, lag, parked events, replay), and the webhooks app for its
 * deliveries. The gateway serves them under /admin/v1/operations with the admin key.
 */

/** The apps that keep catch-up subscriptions (projections and relays). */
export const SUBSCRIBING_APPS = ['payments', 'cash', 'supplier-payments', 'collections'] as const;
export type SubscribingApp = (typeof SUBSCRIBING_APPS)[number];

export interface SubscriptionStatus {
  /** e.g. `payments.payment-views`. */
  subscriptionId: string;
  app: SubscribingApp;
  /** The last committed checkpoint's commit position (a decimal string: positions are 64-bit), null before the first batch. */
  checkpoint: string | null;
  /** When the checkpoint last moved (ISO time), null before the first batch. */
  checkpointUpdatedAt: string | null;
  /** Seconds since this process last found nothing more to handle (0 when caught up). */
  lagSeconds: number;
  /** Events parked (poison) and not yet replayed. */
  parkedEvents: number;
  running: boolean;
}

export interface ParkedEvent {
  subscriptionId: string;
  eventId: string;
  streamId: string;
  type: string;
  error: string;
  parkedAt: string;
}

/** Replay one parked event (both fields), every parked event of a subscription, or every parked event of the app (neither). */
export interface ReplayParked {
  subscriptionId?: string;
  eventId?: string;
}

export interface ParkedReplayed {
  /** Handled this time and no longer parked. */
  replayed: number;
  /** Failed again: still parked, with the new error. */
  failed: { subscriptionId: string; eventId: string; error: string }[];
}

/** A delivery the webhooks app gave up on, or that is still failing (attempted, not delivered). */
export interface FailedDelivery {
  deliveryId: string;
  endpointId: string;
  integratorId: string;
  eventId: string;
  eventType: string;
  /** `failed` (retries exhausted) or `retrying` (still scheduled). */
  status: 'failed' | 'retrying';
  attempts: number;
  lastError: string | null;
  lastAttemptAt: string | null;
}

export interface EndpointHealth {
  endpointId: string;
  integratorId: string;
  url: string;
  status: 'enabled' | 'disabled';
  /** When its current run of failures started (ISO time), null when its last attempt succeeded. */
  failingSince: string | null;
  /** Failing for more than an hour: an operator should look (after days it is disabled). */
  flagged: boolean;
}

export interface OperationsTopics {
  'payments.operations.subscriptions': { request: Record<string, never>; reply: { items: SubscriptionStatus[] } };
  'cash.operations.subscriptions': { request: Record<string, never>; reply: { items: SubscriptionStatus[] } };
  'supplier-payments.operations.subscriptions': { request: Record<string, never>; reply: { items: SubscriptionStatus[] } };
  'collections.operations.subscriptions': { request: Record<string, never>; reply: { items: SubscriptionStatus[] } };
  'payments.operations.parked-events': { request: { limit: number }; reply: { items: ParkedEvent[] } };
  'cash.operations.parked-events': { request: { limit: number }; reply: { items: ParkedEvent[] } };
  'supplier-payments.operations.parked-events': { request: { limit: number }; reply: { items: ParkedEvent[] } };
  'collections.operations.parked-events': { request: { limit: number }; reply: { items: ParkedEvent[] } };
  'payments.operations.replay-parked': { request: ReplayParked; reply: ParkedReplayed };
  'cash.operations.replay-parked': { request: ReplayParked; reply: ParkedReplayed };
  'supplier-payments.operations.replay-parked': { request: ReplayParked; reply: ParkedReplayed };
  'collections.operations.replay-parked': { request: ReplayParked; reply: ParkedReplayed };
  'webhooks.operations.failed-deliveries': {
    request: { endpointId?: string; limit: number; startingAfter?: string };
    reply: ListResource<FailedDelivery>;
  };
  /** Schedules every failed delivery (of one endpoint, or all) for a new attempt now; answers how many. */
  'webhooks.operations.redeliver-failed': { request: { endpointId?: string }; reply: { redelivered: number } };
  /** Enabled endpoints currently failing, oldest failure first, flagged past an hour. */
  'webhooks.operations.failing-endpoints': { request: { limit: number }; reply: { items: EndpointHealth[] } };
}

export const operationsTopicsOf = <A extends SubscribingApp>(app: A) =>
  [`${app}.operations.subscriptions`, `${app}.operations.parked-events`, `${app}.operations.replay-parked`] as const;

export const WEBHOOKS_OPERATIONS_TOPICS = [
  'webhooks.operations.failed-deliveries',
  'webhooks.operations.redeliver-failed',
  'webhooks.operations.failing-endpoints',
] as const satisfies readonly (keyof OperationsTopics)[];
