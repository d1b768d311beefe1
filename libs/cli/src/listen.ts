import { randomBytes } from 'node:crypto';
import { signWebhook, type Event, type Payments } from '@pay/sdk';
import { EVENTS_PAGE_MAX, FORWARD_TIMEOUT_MS, LATE_ARRIVAL_WINDOW_MS, POLL_INTERVAL_MS } from './limits';

/**
 * Resolves after `ms`, or at once when the signal aborts (the timer keeps the process alive meanwhile).
 * The abort listener goes when the timer fires: one listener a poll would pile up on the one signal.
 */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export const newLocalSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export interface Forwarded {
  event: Event;
  status?: number;
  error?: string;
  ms: number;
}

export interface ForwarderOptions {
  forwardTo: string;
  secret: string;
  /** Only these types (default: every type). */
  types?: ReadonlySet<string>;
  onForwarded(outcome: Forwarded): void;
}

/**
 * Follows `GET /v1/events` and posts each new event, oldest first, to a local receiver, signed as the
 * service signs its deliveries (Standard Webhooks, `webhook-id` = the event id) but with a local secret:
 * the integrator's server need not be reachable from the service.
 *
 * Each poll reads everything created since the newest event seen, less a window for events recorded
 * late, and skips the ids already forwarded: an event is forwarded once even when polls overlap.
 */
export class EventForwarder {
  private readonly forwarded = new Map<string, number>();
  /** created_gte of the next poll (service clock). */
  private since = new Date(0);
  /** Events created before the starting point are never forwarded, however late they are listed. */
  private floor = 0;

  constructor(
    private readonly client: Payments,
    private readonly options: ForwarderOptions,
  ) {}

  /** Starts after the newest event that exists now, or at `fromEventId` inclusive (a replay). */
  async position(fromEventId?: string): Promise<void> {
    if (fromEventId !== undefined) {
      const from = await this.client.events.retrieve(fromEventId);
      this.since = new Date(from.created_at);
      this.floor = this.since.getTime();
      return;
    }
    const newest = await this.client.events.list({ limit: EVENTS_PAGE_MAX }).page();
    for (const event of newest.data) this.forwarded.set(event.id, Date.parse(event.created_at));
    if (newest.data[0]) this.since = new Date(newest.data[0].created_at);
    this.floor = this.since.getTime();
  }

  /** One poll: forwards what is new, oldest first; returns how many were forwarded. */
  async poll(): Promise<number> {
    const fresh: Event[] = [];
    const createdGte = new Date(Math.max(this.floor, this.since.getTime() - LATE_ARRIVAL_WINDOW_MS));
    for await (const event of this.client.events.list({ created_gte: createdGte, limit: EVENTS_PAGE_MAX })) {
      if (!this.forwarded.has(event.id)) fresh.push(event);
    }
    fresh.reverse();
    for (const event of fresh) {
      const createdAt = Date.parse(event.created_at);
      this.forwarded.set(event.id, createdAt);
      if (createdAt > this.since.getTime()) this.since = new Date(createdAt);
      if (this.options.types && !this.options.types.has(event.type)) continue;
      this.options.onForwarded(await this.forward(event));
    }
    this.forget();
    return fresh.length;
  }

  /** Polls until the signal aborts; a failed poll is reported and tried again at the next tick. */
  async run(signal: AbortSignal, onError: (error: Error) => void): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.poll();
      } catch (error) {
        onError(error as Error);
      }
      await sleep(POLL_INTERVAL_MS, signal);
    }
  }

  private async forward(event: Event): Promise<Forwarded> {
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const started = Date.now();
    try {
      const response = await fetch(this.options.forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(body, event.id, timestamp, this.options.secret),
        },
        body,
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      return { event, status: response.status, ms: Date.now() - started };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { event, error: cause ?? (error as Error).message, ms: Date.now() - started };
    }
  }

  /** Ids older than the look-back window cannot be listed again: forgetting them bounds the memory. */
  private forget(): void {
    const horizon = this.since.getTime() - LATE_ARRIVAL_WINDOW_MS;
    for (const [id, createdAt] of this.forwarded) if (createdAt < horizon) this.forwarded.delete(id);
  }
}
