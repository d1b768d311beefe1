import type { MessageBus } from '@pay/bus';
import type { CreateRefund, RefundResource } from '@pay/contracts';
import type { AggregateRepository, Existing, Loaded } from '@pay/event-store';
import { CONTENDED_COMMAND_RETRIES_MAX, failpoint, type Clock } from '@pay/kernel';
import { refundOperationId, toRefundResource, type Payment, type Refund, type RefundCommand, type RefundEvent } from '@pay/payments-domain';
import type { Payments } from './payments.service';

export type Refunds = AggregateRepository<RefundCommand, RefundEvent, Refund>;

/** Concurrent refunds of one payment all write its stream: reservations and settlements retry until they pass. */
const CONTENDED = { retriesMax: CONTENDED_COMMAND_RETRIES_MAX };
type Succeeded = Extract<Payment, { status: 'succeeded' }>;
type Pending = Extract<Refund, { status: 'pending' }>;

/** States already read, so that a step does not read them again. */
interface Known {
  refund?: Loaded<Refund>;
  payment?: Loaded<Payment>;
}

/**
 * Refunds, a process of three durable steps: the amount is reserved on the payment's stream (where
 * concurrent reservations conflict, so their sum never exceeds the payment), the refund's ledger
 * transfer (idempotent by the refund's operation id), and the outcome on the refund's stream, then
 * settled on the payment's. Whoever finds a reservation without its outcome (the request, start-up
 * recovery, the sweeper) runs the remaining steps; replays never move money twice.
 */
export class RefundsService {
  constructor(
    private readonly payments: Payments,
    private readonly refunds: Refunds,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly ledgerTimeoutMs: number,
  ) {}

  async create(request: CreateRefund): Promise<RefundResource> {
    const { refundId, paymentId } = request;
    const existing = await this.refunds.load(refundId);
    if (existing.state.status !== 'none') {
      // A retried create (the same id from the idempotency key): the refund, never a second reservation.
      const refund = this.refunds.visible(existing.state, refundId, request.integratorId);
      return toRefundResource(await this.finish(refund.terms.paymentId, refundId, { refund: existing }));
    }
    const payment = await this.payments.loadVisible(paymentId, request.integratorId);
    const reserved = await this.payments.execute(
      paymentId,
      { type: 'ReserveRefund', paymentId, refundId, amount: request.amount, reason: request.reason, now: this.clock.now() },
      { ...CONTENDED, from: payment },
    );
    // Nothing reserved: a concurrent create of the same refund did, and may have opened its stream since.
    const refund = reserved.events.length > 0 ? existing : undefined;
    return toRefundResource(await this.finish(paymentId, refundId, { refund, payment: reserved }));
  }

  async retrieve(integratorId: string, refundId: string): Promise<RefundResource> {
    return toRefundResource((await this.refunds.loadVisible(refundId, integratorId)).state);
  }

  /** Every refund of the payment reserved and not settled: finished, in order. */
  async finishPending(paymentId: string): Promise<void> {
    const payment = await this.payments.load(paymentId);
    if (payment.state.status !== 'succeeded') return;
    for (const refundId of Object.keys(payment.state.pendingRefunds ?? {})) await this.finish(paymentId, refundId, { payment });
  }

  /** The remaining steps of one reserved refund; a no-op once it is settled on the payment. */
  private async finish(paymentId: string, refundId: string, known: Known): Promise<Existing<Refund>> {
    let refund = known.refund ?? (await this.refunds.load(refundId));
    // A reservation never changes until settled: a payment state read earlier still has its terms.
    if (refund.state.status === 'none') refund = await this.request(paymentId, refundId, known.payment ?? (await this.payments.load(paymentId)));
    if (refund.state.status === 'pending') refund = await this.transfer(refund as Loaded<Pending>);
    // The payment's stream is contended (other refunds): read afresh rather than conflict on a stale state.
    await this.payments.execute(paymentId, { type: 'SettleRefund', paymentId, refundId, refunded: refund.state.status === 'succeeded' }, CONTENDED);
    return this.refunds.visible(refund.state, refundId, null);
  }

  /** The refund's own stream, opened from the reservation on the payment (the terms come from there). */
  private async request(paymentId: string, refundId: string, loaded: Loaded<Payment>): Promise<Loaded<Refund>> {
    const payment = loaded.state as Succeeded;
    const reservation = payment.pendingRefunds?.[refundId];
    if (!reservation) throw new Error(`refund ${refundId}: no reservation on payment ${paymentId}`);
    return this.refunds.execute(
      refundId,
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
  }

  /** The ledger step, then the outcome (recorded with the webhooks app before anyone is answered). */
  private async transfer(refund: Loaded<Pending>): Promise<Loaded<Refund>> {
    const { terms } = refund.state;
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
    const outcome = transfer.status === 'completed' ? ({ status: 'completed', entryId: transfer.entryId } as const) : transfer;
    return this.refunds.execute(terms.refundId, { type: 'CompleteRefund', refundId: terms.refundId, outcome, now: this.clock.now() }, { from: refund });
  }
}
