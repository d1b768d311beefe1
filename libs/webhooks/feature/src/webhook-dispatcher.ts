import { Logger } from '@nestjs/common';
import { failpoint, WEBHOOK_IN_FLIGHT_MAX, WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX, WEBHOOK_LEASE_MS, WEBHOOK_POLL_INTERVAL_MS, type Clock } from '@pay/kernel';
import { record, runOutsideLogContext, webhookDeliveryAttemptsTotal, type WebhookAttemptOutcome } from '@pay/observability';
import { AttemptRecorder } from './attempt-recorder';
import { closeWebhookConnections, sendWebhook, type DeliveryResult } from './delivery';
import { nextRetryAt } from './retry-schedule';
import type { ClaimedDelivery, FinishedAttempt, WebhooksStore } from './webhooks.store';

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
 * Delivers due webhook deliveries: claims them in PostgreSQL (several dispatchers may run), a batch per
 * statement, sends each attempt, records the attempts that finish together in one statement, and
 * schedules the retry on the service clock. Woken when an event is recorded (or redelivered), when a
 * slot frees while due deliveries may have been left for want of one, and polls for retries that fell
 * due and for claims whose lease expired.
 */
export class WebhookDispatcher {
  private readonly logger = new Logger('webhooks');
  /** Attempts on the wire (the slots), by delivery. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Finished attempts whose record is not written yet: with those on the wire, at most 2 × inFlightMax (claims wait past it). */
  private readonly recording = new Set<Promise<void>>();
  /** Their deliveries: still leased in PostgreSQL, but no longer on the wire (they hold no endpoint slot). */
  private readonly recordingDeliveries = new Set<string>();
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private stopped = false;
  /** Claims run one at a time: each must see the slots the previous one took. */
  private claiming: Promise<unknown> = Promise.resolve();
  /**
   * The last claim may have left due deliveries for want of a slot (every slot taken, or an endpoint's):
   * a slot that frees claims again. Otherwise the last claim took everything due then, and only a wake
   * (a new event) or the poll (retries falling due, expired leases) can find more.
   */
  private slotBound = false;
  /** A slot freed while the current claim ran: if that claim turns out slot-bound, claim again. */
  private freedDuringClaim = false;
  private readonly recorder: AttemptRecorder<FinishedAttempt>;

  constructor(
    private readonly store: WebhooksStore,
    private readonly clock: Clock,
    private readonly options: DispatcherOptions,
  ) {
    this.recorder = new AttemptRecorder((batch) => this.recordBatch(batch), options.inFlightMax);
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pumping;
    await this.settled();
    closeWebhookConnections();
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
      await this.settled();
      if (launched.length === 0) return started;
    }
  }

  /** Every attempt launched so far has ended and its record is written. */
  private async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
    await Promise.allSettled([...this.recording]);
  }

  /** One claim: it takes everything due that the free slots allow (a freed slot or a wake claims again). */
  private async pump(): Promise<void> {
    try {
      if (!this.stopped) await this.claimAndLaunch();
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
    // Slots, and room among the records waiting to be written (a slow write holds up new claims).
    const free = Math.min(this.options.inFlightMax - this.inFlight.size, 2 * this.options.inFlightMax - this.inFlight.size - this.recording.size);
    if (this.stopped) return [];
    if (free <= 0) {
      this.slotBound = true;
      return [];
    }
    // This dispatcher's counts when the claim is made (attempts ending while it runs lower the live
    // ones); the claim itself bounds each endpoint by the leases of every dispatcher.
    const inFlightAtClaim = new Map(this.perEndpoint);
    this.freedDuringClaim = false;
    const claimed = await this.store.claimDue(this.clock.now(), free, this.options.inFlightPerEndpointMax, this.options.leaseMs, [...this.recordingDeliveries]);
    // The body's bytes once per event, shared by its deliveries to every endpoint.
    const payloads = new Map<string, Buffer>();
    for (const delivery of claimed) {
      let payload = payloads.get(delivery.eventId);
      if (!payload) payloads.set(delivery.eventId, (payload = Buffer.from(delivery.body, 'utf8')));
      this.launch(delivery, payload);
    }
    this.slotBound = claimed.length >= free || this.endpointBound(inFlightAtClaim, claimed);
    if (this.slotBound && this.freedDuringClaim) this.wake();
    return claimed;
  }

  /** Whether the claim filled some endpoint's slots, as counted when it was made: it may have left that endpoint's due deliveries. */
  private endpointBound(inFlightAtClaim: ReadonlyMap<string, number>, claimed: readonly ClaimedDelivery[]): boolean {
    const taken = new Map(inFlightAtClaim);
    for (const { endpointId } of claimed) taken.set(endpointId, (taken.get(endpointId) ?? 0) + 1);
    return [...taken.values()].some((n) => n >= this.options.inFlightPerEndpointMax);
  }

  /**
   * An attempt holds its slots while it is on the wire; its record is then written with the others that
   * finish meanwhile (the delivery keeps its lease until then: no other claim takes it).
   */
  private launch(delivery: ClaimedDelivery, payload: Buffer): void {
    this.perEndpoint.set(delivery.endpointId, (this.perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const attempt = this.attempt(delivery, payload).then(
      (finished) => {
        this.recordingDeliveries.add(delivery.deliveryId);
        this.release(delivery);
        const written = this.recorder
          .record(finished)
          .then(() => this.afterRecord(delivery, finished))
          .catch((error: unknown) => this.logger.error(`delivery ${delivery.deliveryId}: attempt not recorded: ${String(error)}`))
          .finally(() => {
            this.recordingDeliveries.delete(delivery.deliveryId);
            this.recording.delete(written);
            if (this.slotBound) this.wake();
          });
        this.recording.add(written);
      },
      (error: unknown) => {
        this.logger.error(`delivery ${delivery.deliveryId}: ${String(error)}`);
        this.release(delivery);
      },
    );
    this.inFlight.set(delivery.deliveryId, attempt);
  }

  private release(delivery: ClaimedDelivery): void {
    this.inFlight.delete(delivery.deliveryId);
    const left = (this.perEndpoint.get(delivery.endpointId) ?? 1) - 1;
    if (left === 0) this.perEndpoint.delete(delivery.endpointId);
    else this.perEndpoint.set(delivery.endpointId, left);
    this.freedDuringClaim = true;
    if (this.slotBound) this.wake(); // a slot is free, and due deliveries may be waiting for one
  }

  private async attempt(delivery: ClaimedDelivery, payload: Buffer): Promise<FinishedAttempt> {
    failpoint('webhooks.before-attempt');
    const attemptedAt = this.clock.now();
    const send = this.options.send ?? sendWebhook;
    const result: DeliveryResult = await send({
      url: delivery.url,
      secret: delivery.secrets[0]!,
      ...(delivery.secrets[1] === undefined ? {} : { previousSecret: delivery.secrets[1] }),
      eventId: delivery.eventId,
      body: delivery.body,
      payload,
      sandbox: this.options.sandbox,
    });
    const now = this.clock.now();
    const retryAt = result.ok ? null : nextRetryAt(delivery.attempts + 1, now);
    return {
      deliveryId: delivery.deliveryId,
      endpointId: delivery.endpointId,
      attempt: { attemptedAt, statusCode: result.statusCode, latencyMs: Math.round(result.latencyMs), error: result.error },
      next: result.ok ? { status: 'succeeded' } : retryAt ? { status: 'pending', nextAttemptAt: retryAt } : { status: 'failed' },
      now,
    };
  }

  private afterRecord(delivery: ClaimedDelivery, { next }: FinishedAttempt): void {
    const outcome: WebhookAttemptOutcome = next.status === 'succeeded' ? 'succeeded' : next.status === 'pending' ? 'retry_scheduled' : 'gave_up';
    record(() => webhookDeliveryAttemptsTotal.inc({ outcome }));
    if (next.status === 'failed') this.logger.warn(`delivery ${delivery.deliveryId} of ${delivery.eventId} failed after ${delivery.attempts + 1} attempts`);
  }

  /**
   * The attempts that finished together, in one statement; then, rarely, the endpoints it found failing
   * for 5 days are disabled, each in a transaction of its own that tells the integrator (a failure
   * there leaves the endpoint enabled: its next failed attempt disables it).
   */
  private async recordBatch(batch: FinishedAttempt[]): Promise<void> {
    const overdue = await this.store.recordAttempts(batch);
    await this.disableOverdue(overdue);
  }

  /** Never throws: the batch is recorded already, and must not be recorded again. */
  private async disableOverdue(endpointIds: string[]): Promise<void> {
    for (const endpointId of endpointIds) {
      try {
        const disabled = await this.store.disableFailingEndpoint(endpointId, this.clock.now());
        if (!disabled) continue;
        this.logger.warn(`webhook endpoint ${disabled.id} disabled: every attempt failed for 5 days`);
        this.wake(); // the integrator's other endpoints are told
      } catch (error) {
        this.logger.error(`disabling webhook endpoint ${endpointId}: ${String(error)}`);
      }
    }
  }
}
