import { Logger } from '@nestjs/common';
import { failpoint, WEBHOOK_CLAIM_RETRY_MS, WEBHOOK_IN_FLIGHT_MAX, WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX, WEBHOOK_LEASE_MS, WEBHOOK_POLL_INTERVAL_MS, type Clock } from '@pay/kernel';
import { record, runOutsideLogContext, webhookDeliveryAttemptsTotal, type WebhookAttemptOutcome } from '@pay/observability';
import { AttemptRecorder } from './attempt-recorder';
import { closeWebhookConnections, sendWebhook, type DeliveryResult } from './delivery';
import { nextRetryAt } from './retry-schedule';
import type { Claim, ClaimedDelivery, FinishedAttempt, NewDelivery, WebhooksStore } from './webhooks.store';

export interface DispatcherOptions {
  sandbox: boolean;
  /** Attempts in flight at once, all endpoints together. */
  inFlightMax: number;
  /** Attempts in flight to one endpoint: a slow or dead endpoint holds at most this many slots. */
  inFlightPerEndpointMax: number;
  pollIntervalMs: number;
  /** A claim outlives an attempt; after a crash, the delivery is claimed again once it expires. */
  leaseMs: number;
  /** How soon to claim again when due deliveries wait for slots that other dispatchers hold. */
  claimRetryMs: number;
  send?: typeof sendWebhook;
}

/** The dispatcher's options in every app: the bounds of limits.ts. */
export const DISPATCHER_DEFAULTS: Omit<DispatcherOptions, 'sandbox'> = {
  inFlightMax: WEBHOOK_IN_FLIGHT_MAX,
  inFlightPerEndpointMax: WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX,
  pollIntervalMs: WEBHOOK_POLL_INTERVAL_MS,
  leaseMs: WEBHOOK_LEASE_MS,
  claimRetryMs: WEBHOOK_CLAIM_RETRY_MS,
};

/**
 * Delivers due webhook deliveries: claims them in PostgreSQL (several dispatchers may run), a batch per
 * statement, sends each attempt, records the attempts that finish together in one statement, and
 * schedules the retry on the service clock. Woken when an event is recorded (or redelivered) and no
 * claim took its deliveries yet, when a slot frees on an endpoint whose due deliveries the last claim
 * left, shortly after a claim that left some on slots other dispatchers hold, and polls for retries that
 * fell due and for claims whose lease expired.
 */
export class WebhookDispatcher {
  private readonly logger = new Logger('webhooks');
  /** Attempts on the wire (the slots), by delivery. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Finished attempts whose record is not written yet: with those on the wire, at most 2 × inFlightMax (claims wait past it). */
  private readonly recording = new Set<Promise<void>>();
  /** Their deliveries: still leased in PostgreSQL, but no longer on the wire (they hold no endpoint slot). */
  private readonly recordingDeliveries = new Set<string>();
  /** Attempts on the wire, by endpoint. */
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** The next claim, claimRetryMs after the last: set while due deliveries wait for slots that other dispatchers hold. */
  private retryTimer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private stopped = false;
  /** Claims run one at a time: each must see the slots the previous one took. */
  private claiming: Promise<unknown> = Promise.resolve();
  /**
   * The last claim took as many as this dispatcher's slots allowed, and may have left due deliveries:
   * any slot that frees claims again.
   */
  private slotBound = false;
  /**
   * The endpoints whose due deliveries the last claim left for want of their slots: one of their slots
   * that frees claims again. Otherwise only a wake (a new event) or the poll (retries falling due,
   * expired leases) can find more.
   */
  private dueLeft = new Set<string>();
  /** The endpoints whose slots freed while the current claim ran: claim again if it left them due deliveries. */
  private freedDuringClaim = new Set<string>();
  /**
   * Deliveries recorded (their rows committed) that no claim begun since could have seen, with their
   * endpoints: one claims again for them, unless the claim running took them already (a claim often sees
   * the rows of records whose callers have not woken it yet, and a second claim for those would find
   * nothing) or left their endpoint due deliveries (its freed slots claim them).
   */
  private readonly unseenRecorded = new Map<string, string>();
  /** A claim's statement is running (claims run one at a time). */
  private claimRunning = false;
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
    clearTimeout(this.retryTimer);
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
      if (this.pumpAgain || this.unseenRecorded.size > 0) {
        this.pumpAgain = false;
        this.wake();
      }
    });
  }

  /**
   * New deliveries, recorded and committed: claimed by the next claim, which the pump runs now or after
   * the running one, unless that one takes them (see unseenRecorded). One for an endpoint whose due
   * deliveries the last claim left waits for its slot, which claims it.
   */
  recorded(deliveries: readonly NewDelivery[]): void {
    if (this.stopped) return;
    for (const { deliveryId, endpointId } of deliveries) {
      if (this.inFlight.has(deliveryId) || this.recordingDeliveries.has(deliveryId)) continue;
      if (!this.claimRunning && this.dueLeft.has(endpointId)) continue;
      this.unseenRecorded.set(deliveryId, endpointId);
    }
    if (this.unseenRecorded.size > 0 && !this.pumping) this.wake();
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
      // The slot that frees claims again, and sees what was recorded meanwhile.
      this.slotBound = true;
      this.unseenRecorded.clear();
      return [];
    }
    this.freedDuringClaim.clear();
    // Committed before this claim's statement is sent, so its snapshot sees them: taken, left for want
    // of a slot (slotBound, below), or taken by another dispatcher.
    const seen = [...this.unseenRecorded.keys()];
    let claim: Claim;
    this.claimRunning = true;
    try {
      // The claim bounds each endpoint by the leases of every dispatcher.
      claim = await this.store.claimDue(this.clock.now(), free, this.options.inFlightPerEndpointMax, this.options.leaseMs, [...this.recordingDeliveries]);
    } finally {
      this.claimRunning = false;
      // After a failed claim too: the poll finds them (a failing database is not claimed again at once).
      for (const id of seen) this.unseenRecorded.delete(id);
    }
    const claimed = claim.deliveries;
    for (const { deliveryId } of claimed) this.unseenRecorded.delete(deliveryId);
    // The body's bytes once per event, shared by its deliveries to every endpoint.
    const payloads = new Map<string, Buffer>();
    for (const delivery of claimed) {
      let payload = payloads.get(delivery.eventId);
      if (!payload) payloads.set(delivery.eventId, (payload = Buffer.from(delivery.body, 'utf8')));
      this.launch(delivery, payload);
    }
    this.slotBound = claimed.length >= free;
    this.dueLeft = new Set(claim.dueLeft);
    // Recorded while it ran, on an endpoint it left due deliveries: that endpoint's freed slot claims them.
    for (const [deliveryId, endpointId] of this.unseenRecorded) if (this.dueLeft.has(endpointId)) this.unseenRecorded.delete(deliveryId);
    if ([...this.freedDuringClaim].some((endpointId) => this.slotBound || this.dueLeft.has(endpointId))) this.wake();
    this.retryForOthersSlots();
    return claimed;
  }

  /**
   * Due deliveries left on an endpoint whose slots other dispatchers hold: their attempts free those
   * slots, and nothing tells this dispatcher, so it claims again shortly rather than at the next poll.
   */
  private retryForOthersSlots(): void {
    if (this.retryTimer || ![...this.dueLeft].some((endpointId) => !this.perEndpoint.has(endpointId))) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, this.options.claimRetryMs);
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

  private release({ deliveryId, endpointId }: ClaimedDelivery): void {
    this.inFlight.delete(deliveryId);
    const left = (this.perEndpoint.get(endpointId) ?? 1) - 1;
    if (left === 0) this.perEndpoint.delete(endpointId);
    else this.perEndpoint.set(endpointId, left);
    this.freedDuringClaim.add(endpointId);
    // A slot is free, and due deliveries wait for one.
    if (this.slotBound || this.dueLeft.has(endpointId)) this.wake();
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
