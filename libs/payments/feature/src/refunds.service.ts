import type { MessageBus } from '@pay/bus';
import { integrationEventId, notFound, type CreateRefund, type IntegrationEvent, type RefundResource } from '@pay/contracts';
import { CONTENDED_COMMAND_RETRIES_MAX, fold, forEachWithStateAfter, handleCommand, type EventStore, type RecordedEvent } from '@pay/event-store';
import { failpoint, type Clock } from '@pay/kernel';
import {
  paymentDecider,
  paymentStreamId,
  refundDecider,
  refundOperationId,
  refundStreamId,
  toRefundResource,
  type Payment,
  type Refund,
  type RefundEvent,
} from '@pay/payments-domain';

type ExistingRefund = Exclude<Refund, { status: 'none' }>;

/** Concurrent refunds of one payment all write its stream: reservations and settlements retry until they pass. */
const CONTENDED = { retriesMax: CONTENDED_COMMAND_RETRIES_MAX };
type Succeeded = Extract<Payment, { status: 'succeeded' }>;

/**
 * Refunds, a process of three durable steps: the amount is reserved on the payment's stream (where
 * concurrent reservations conflict, so their sum never exceeds the payment), the refund's ledger
 * transfer (idempotent by the refund's operation id), and the outcome on the refund's stream, then
 * settled on the payment's. Whoever finds a reservation without its outcome (the request, start-up
 * recovery, the sweeper) runs the remaining steps; replays never move money twice.
 */
export class RefundsService {
  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly ledgerTimeoutMs: number,
  ) {}

  async create(request: CreateRefund): Promise<RefundResource> {
    const { refundId, paymentId } = request;
    const existing = await this.load(refundId);
    if (existing.status !== 'none') {
      // A retried create (the same id from the idempotency key): the refund, never a second reservation.
      if (existing.terms.integratorId !== request.integratorId) throw notFound('refund', refundId);
      return toRefundResource(await this.finish(existing.terms.paymentId, refundId));
    }
    const payment = fold(paymentDecider, await this.store.readStream(paymentStreamId(paymentId)));
    if (payment.status === 'none' || payment.terms.integratorId !== request.integratorId) throw notFound('payment', paymentId);
    await handleCommand(this.store, paymentStreamId(paymentId), paymentDecider, {
      type: 'ReserveRefund',
      paymentId,
      refundId,
      amount: request.amount,
      reason: request.reason,
      now: this.clock.now(),
    }, CONTENDED);
    return toRefundResource(await this.finish(paymentId, refundId));
  }

  async retrieve(integratorId: string, refundId: string): Promise<RefundResource> {
    const refund = await this.load(refundId);
    if (refund.status === 'none' || refund.terms.integratorId !== integratorId) throw notFound('refund', refundId);
    return toRefundResource(refund);
  }

  /** Every refund of the payment reserved and not settled: finished, in order. */
  async finishPending(paymentId: string): Promise<void> {
    const payment = fold(paymentDecider, await this.store.readStream(paymentStreamId(paymentId)));
    if (payment.status !== 'succeeded') return;
    for (const refundId of Object.keys(payment.pendingRefunds ?? {})) await this.finish(paymentId, refundId);
  }

  /** The remaining steps of one reserved refund; a no-op once it is settled on the payment. */
  private async finish(paymentId: string, refundId: string): Promise<ExistingRefund> {
    let refund = await this.load(refundId);
    if (refund.status === 'none') refund = await this.request(paymentId, refundId);
    if (refund.status === 'pending') refund = await this.transfer(refund);
    await handleCommand(this.store, paymentStreamId(paymentId), paymentDecider, { type: 'SettleRefund', paymentId, refundId, refunded: refund.status === 'succeeded' }, CONTENDED);
    return refund;
  }

  /** The refund's own stream, opened from the reservation on the payment (the terms come from there). */
  private async request(paymentId: string, refundId: string): Promise<ExistingRefund> {
    const payment = fold(paymentDecider, await this.store.readStream(paymentStreamId(paymentId))) as Succeeded;
    const reservation = payment.pendingRefunds?.[refundId];
    if (!reservation) throw new Error(`refund ${refundId}: no reservation on payment ${paymentId}`);
    const { state } = await handleCommand(
      this.store,
      refundStreamId(refundId),
      refundDecider,
      {
        type: 'RequestRefund',
        terms: {
          refundId,
          integratorId: payment.terms.integratorId,
          paymentId,
          amount: reservation.amount,
          currency: payment.terms.currency,
          reason: reservation.reason,
          merchantConnection: payment.terms.merchantConnection,
          customerId: payment.authorization.customerId,
          createdAt: reservation.reservedAt,
        },
      },
      { expectNew: true },
    );
    return state as ExistingRefund;
  }

  private async transfer(refund: Extract<Refund, { status: 'pending' }>): Promise<ExistingRefund> {
    const { terms } = refund;
    const transfer = await this.bus.request(
      'ledger.transfer',
      {
        operationId: refundOperationId(terms.refundId),
        reference: terms.refundId,
        useCase: 'refund',
        feeMode: 'none',
        debitOwner: terms.merchantConnection,
        creditOwner: terms.customerId,
        amount: terms.amount,
        currency: terms.currency,
      },
      { timeoutMs: this.ledgerTimeoutMs },
    );
    failpoint('refunds.after-ledger-transfer');
    const handled = await handleCommand(this.store, refundStreamId(terms.refundId), refundDecider, {
      type: 'CompleteRefund',
      refundId: terms.refundId,
      outcome: transfer.status === 'completed' ? { status: 'completed', entryId: transfer.entryId } : transfer,
      now: this.clock.now(),
    });
    // The outcome is recorded with the webhooks app before anyone is answered (the relay otherwise).
    const [event] = handled.events;
    const integrationEvent = event && toRefundIntegrationEvent(event, handled.state, handled.revision);
    if (integrationEvent) await this.bus.request('events.record', integrationEvent);
    return handled.state as ExistingRefund;
  }

  private async load(refundId: string): Promise<Refund> {
    return fold(refundDecider, await this.store.readStream(refundStreamId(refundId)));
  }
}

/** `refund.succeeded` or `refund.failed` with the refund as data, or null for the request itself. */
export function toRefundIntegrationEvent(event: RefundEvent, stateAfter: Refund, revision: bigint): IntegrationEvent | null {
  if (stateAfter.status === 'none' || event.type === 'RefundRequested') return null;
  const resource = toRefundResource(stateAfter);
  return {
    id: integrationEventId(refundStreamId(resource.id), revision),
    type: event.type === 'RefundSucceeded' ? 'refund.succeeded' : 'refund.failed',
    createdAt: event.type === 'RefundSucceeded' ? event.succeededAt : event.failedAt,
    integratorId: stateAfter.terms.integratorId,
    objectId: resource.id,
    data: { ...resource, object_version: Number(revision) + 1 },
  };
}

/**
 * The relay from the refund streams to the webhooks app (at least once), the safety net of the
 * recording done before a create is answered. Recording is idempotent by the stable event id.
 */
export const relayRefundEvents = (store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> =>
  forEachWithStateAfter<RefundEvent, Refund>(
    store,
    refundDecider,
    batch,
    async (event, stateAfter, revision) => {
      const integrationEvent = toRefundIntegrationEvent(event, stateAfter, revision);
      if (integrationEvent) await bus.request('events.record', integrationEvent);
    },
    (event) => event.type === 'RefundRequested',
  );
