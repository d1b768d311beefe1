import { Logger } from '@nestjs/common';
import { failpoint, WEBHOOK_IN_FLIGHT_MAX, WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX, WEBHOOK_LEASE_MS, WEBHOOK_POLL_INTERVAL_MS, type Clock } from '@pay/kernel';
import { record, runOutsideLogContext, webhookDeliveryAttemptsTotal, type WebhookAttemptOutcome } from '@pay/observability';
import { sendWebhook, type DeliveryResult } from './delivery';
import { nextRetryAt } from './retry-schedule';
import type { ClaimedDelivery, WebhooksStore } from './webhooks.store';

export interface DispatcherOptions {
  sandbox: boolean;
  /** Attempts in flight at once, all endpoints together. */
  inFlightMax: number;
  /** Attempts in flight to one endpoint: a slow or dead endpoint holds at most this many slots. */
  inFlightPerEndpointMax: number;
  pollIntervalMs: number;
  /** A claim outlives an attempt; after a crash, the delivery is claimed again once it expires. */
  leaseMs: number;
  send?: typeof sendWebhook;
}

/** The dispatcher's options in every app: the bounds of limits.ts. */
export const DISPATCHER_DEFAULTS: Omit<DispatcherOptions, 'sandbox'> = {
  inFlightMax: WEBHOOK_IN_FLIGHT_MAX,
  inFlightPerEndpointMax: WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX,
  pollIntervalMs: WEBHOOK_POLL_INTERVAL_MS,
  leaseMs: WEBHOOK_LEASE_MS,
};

/**
 * Delivers due webhook deliveries: claims them in PostgreSQL (several dispatchers may run), sends each
 * attempt, records it, and schedules the retry on the service clock. Woken when an event is recorded,
 * and polls for retries that fell due.
 */
export class WebhookDispatcher {
  private readonly logger = new Logger('webhooks');
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private stopped = false;
  /** Claims run one at a time: each must see the slots the previous one took. */
  private claiming: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: WebhooksStore,
    private readonly clock: Clock,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pumping;
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Look for due deliveries now (coalesced: one pump at a time, re-run if woken meanwhile). The pump
   * runs outside the waking request's log context: it delivers whatever is due, not that request's.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = runOutsideLogContext(() => this.pump()).finally(() => {
      this.pumping = undefined;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.wake();
      }
    });
  }

  /** Sends everything due on the service clock and waits for those attempts (the sandbox clock advance). */
  async drainDue(): Promise<number> {
    let started = 0;
    for (;;) {
      await this.pumping;
      const launched = await this.claimAndLaunch();
      started += launched.length;
      await Promise.allSettled([...this.inFlight.values()]);
      if (launched.length === 0) return started;
    }
  }

  private async pump(): Promise<void> {
    try {
      while (!this.stopped && (await this.claimAndLaunch()).length > 0) {
        /* claim until nothing is due or no slot is free */
      }
    } catch (error) {
      this.logger.error(`dispatch failed: ${String(error)}`);
    }
  }

  private claimAndLaunch(): Promise<ClaimedDelivery[]> {
    const claim = this.claiming.then(() => this.claimNow());
    this.claiming = claim.catch(() => undefined);
    return claim;
  }

  private async claimNow(): Promise<ClaimedDelivery[]> {
    const free = this.options.inFlightMax - this.inFlight.size;
    if (free <= 0 || this.stopped) return [];
    const claimed = await this.store.claimDue(this.clock.now(), free, this.perEndpoint, this.options.inFlightPerEndpointMax, this.options.leaseMs);
    for (const delivery of claimed) this.launch(delivery);
    return claimed;
  }

  private launch(delivery: ClaimedDelivery): void {
    this.perEndpoint.set(delivery.endpointId, (this.perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.logger.error(`delivery ${delivery.deliveryId}: ${String(error)}`))
      .finally(() => {
        this.inFlight.delete(delivery.deliveryId);
        const left = (this.perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left === 0) this.perEndpoint.delete(delivery.endpointId);
        else this.perEndpoint.set(delivery.endpointId, left);
        this.wake(); // a slot is free
      });
    this.inFlight.set(delivery.deliveryId, attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    failpoint('webhooks.before-attempt');
    const attemptedAt = this.clock.now();
    const send = this.options.send ?? sendWebhook;
    const result: DeliveryResult = await send({
      url: delivery.url,
      secret: delivery.secrets[0]!,
      ...(delivery.secrets[1] === undefined ? {} : { previousSecret: delivery.secrets[1] }),
      eventId: delivery.eventId,
      body: delivery.body,
      sandbox: this.options.sandbox,
    });
    const attemptNumber = delivery.attempts + 1;
    const retryAt = result.ok ? null : nextRetryAt(attemptNumber, this.clock.now());
    const disabled = await this.store.recordAttempt(
      delivery,
      { attemptedAt, statusCode: result.statusCode, latencyMs: Math.round(result.latencyMs), error: result.error },
      result.ok ? { status: 'succeeded' } : retryAt ? { status: 'pending', nextAttemptAt: retryAt } : { status: 'failed' },
      this.clock.now(),
    );
    const outcome: WebhookAttemptOutcome = result.ok ? 'succeeded' : retryAt ? 'retry_scheduled' : 'gave_up';
    record(() => webhookDeliveryAttemptsTotal.inc({ outcome }));
    if (disabled) {
      this.logger.warn(`webhook endpoint ${disabled.id} disabled: every attempt failed for 5 days`);
      this.wake(); // the integrator's other endpoints are told
    }
    if (!result.ok && !retryAt) this.logger.warn(`delivery ${delivery.deliveryId} of ${delivery.eventId} failed after ${attemptNumber} attempts`);
  }
}
