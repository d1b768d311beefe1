import type { MessageBus } from '@pay/bus';
import type { AuthorizePaymentRequest, CreatePaymentRequest, PaymentRef, PaymentResource } from '@pay/contracts';
import { LedgerTransferStep, type AggregateRepository, type Existing, type Loaded } from '@pay/event-store';
import { addMs, AUTHORIZATION_TTL_MS, LEDGER_TIMEOUT_MS, type Clock } from '@pay/kernel';
import { toPaymentResource, type AuthorizationOutcome, type Payment, type PaymentCommand, type PaymentEvent } from '@pay/payments-domain';

export interface PaymentsConfig {
  publicBaseUrl: string;
  /** How long the customer has to authorize (contract: 30 minutes). */
  authorizationTtlMs: number;
  /** A ledger call that takes longer is abandoned by this request and finished by the recovery sweep. */
  ledgerTimeoutMs: number;
}

/** The contract's time to authorize and the ledger call's bound (limits.ts). */
export const paymentsConfig = ({ publicBaseUrl }: { publicBaseUrl: string }): PaymentsConfig => ({
  publicBaseUrl,
  authorizationTtlMs: AUTHORIZATION_TTL_MS,
  ledgerTimeoutMs: LEDGER_TIMEOUT_MS,
});

export type Payments = AggregateRepository<PaymentCommand, PaymentEvent, Payment>;

/**
 * The payments app: the payment aggregate behind the bus, and the authorization process between
 * payments and the ledger. The process has two steps, each durable: PaymentAuthorizationStarted in
 * the stream, then the ledger transfer (idempotent by the payment's operation id), then the outcome
 * in the stream. Whoever finds a started authorization (this request, or the recovery sweep after a
 * crash) runs the remaining steps; replays never debit twice.
 */
export class PaymentsService {
  private readonly ledger: LedgerTransferStep;

  constructor(
    private readonly payments: Payments,
    bus: MessageBus,
    private readonly clock: Clock,
    private readonly config: PaymentsConfig,
  ) {
    this.ledger = new LedgerTransferStep(bus, config.ledgerTimeoutMs);
  }

  async create(request: CreatePaymentRequest): Promise<PaymentResource> {
    const now = this.clock.now();
    const { paymentId } = request;
    const created = await this.payments.create(
      paymentId,
      {
        type: 'CreatePayment',
        terms: {
          paymentId,
          integratorId: request.integratorId,
          amount: request.amount,
          currency: request.currency,
          orderReference: request.orderReference,
          merchantConnection: request.merchantConnection,
          returnUrl: request.returnUrl,
          authorizationUrl: `${this.config.publicBaseUrl}/hosted/payments/${paymentId}`,
        },
        expiresAt: addMs(now, this.config.authorizationTtlMs),
        now,
      },
      request.integratorId,
    );
    return toPaymentResource(created);
  }

  async retrieve(ref: PaymentRef): Promise<PaymentResource> {
    return toPaymentResource((await this.payments.loadVisible(ref.paymentId, ref.integratorId)).state);
  }

  async cancel(ref: PaymentRef): Promise<PaymentResource> {
    const { state } = await this.payments.executeVisible(ref.paymentId, ref.integratorId, { type: 'CancelPayment', paymentId: ref.paymentId, now: this.clock.now() });
    return this.resource(state, ref);
  }

  async decline(ref: PaymentRef): Promise<PaymentResource> {
    const { state } = await this.payments.executeVisible(ref.paymentId, ref.integratorId, { type: 'DeclinePayment', paymentId: ref.paymentId, now: this.clock.now() });
    return this.resource(state, ref);
  }

  async authorize(request: AuthorizePaymentRequest): Promise<PaymentResource> {
    const started = await this.payments.executeVisible(request.paymentId, request.integratorId, {
      type: 'StartAuthorization',
      paymentId: request.paymentId,
      customerId: request.customer.id,
      customerCurrency: request.customer.currency,
      now: this.clock.now(),
    });
    return this.resource(await this.finish(request.paymentId, started), request);
  }

  /** Before a batch of authorizations: their payments, read at once where this process does not remember them. */
  recall(requests: readonly AuthorizePaymentRequest[]): Promise<void> {
    return this.payments.recall(requests.map((request) => request.paymentId));
  }

  /** The process's remaining steps for a started authorization; a no-op once its outcome is recorded. */
  async finishAuthorization(paymentId: string): Promise<Existing<Payment>> {
    return this.finish(paymentId, await this.payments.loadExisting(paymentId));
  }

  /** The ledger step of a started authorization, then its outcome (see LedgerTransferStep). */
  private finish(paymentId: string, current: Loaded<Payment>): Promise<Existing<Payment>> {
    return this.ledger.finish(
      this.payments,
      paymentId,
      current,
      (state) => {
        if (state.status !== 'pending' || !state.authorization) return null;
        const { terms, authorization } = state;
        return {
          transfer: {
            operationId: authorization.operationId,
            reference: paymentId,
            useCase: 'payment',
            feeMode: 'deducted',
            debitOwner: authorization.customerId,
            creditOwner: terms.merchantConnection,
            amount: terms.amount,
            currency: terms.currency,
          },
          complete: (transfer) => {
            const outcome: AuthorizationOutcome =
              transfer.status === 'completed'
                ? { status: 'completed', entryId: transfer.entryId, feeAmount: transfer.feeAmount, netAmount: transfer.netAmount }
                : transfer;
            return { type: 'CompleteAuthorization' as const, paymentId, outcome, now: this.clock.now() };
          },
        };
      },
      'payments.after-ledger-transfer',
    );
  }

  private resource(state: Payment, ref: PaymentRef): PaymentResource {
    return toPaymentResource(this.payments.visible(state, ref.paymentId, ref.integratorId));
  }
}
