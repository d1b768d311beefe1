import type { MessageBus } from '@pay/bus';
import { toCashPaymentResource, type CashPayment, type CashPaymentCommand, type CashPaymentEvent, parsePaymentReference } from '@pay/cash-domain';
import {
  notFound,
  ServiceError,
  type CashPaymentRef,
  type CashPaymentResource,
  type CreateCashPaymentRequest,
  type InstructionsPageContext,
  type PayCashPaymentRequest,
} from '@pay/contracts';
import { LedgerTransferStep, type AggregateRepository, type Existing, type Loaded } from '@pay/event-store';
import { addMs, CASH_PAYMENT_TTL_MS_DEFAULT, CASH_POINTS_ON_PAGE_MAX, LEDGER_TIMEOUT_MS, type Clock } from '@pay/kernel';
import type { CashPointsStore } from './cash-points.store';
import type { CashPaymentNumbers } from './cash-payment-store';
import { renderInstructionsPage, renderQrCodePng } from './cash-pages';

export interface CashConfig {
  publicBaseUrl: string;
}

export type CashPayments = AggregateRepository<CashPaymentCommand, CashPaymentEvent, CashPayment>;

/**
 * The cash payment aggregate behind the bus, and the validation process between cash and the ledger.
 * Like payments' authorization it has two durable steps: CashPaymentValidationStarted in the stream
 * (which already blocks cancel and expiry), then the ledger transfer from the platform's cash account
 * (idempotent by the cash payment's operation id), then CashPaymentSucceeded. Whoever finds a started
 * validation (this request, or the recovery sweep after a crash) runs the remaining steps.
 */
export class CashPaymentsService {
  private readonly ledger: LedgerTransferStep;

  constructor(
    private readonly cashPayments: CashPayments,
    bus: MessageBus,
    private readonly clock: Clock,
    private readonly numbers: CashPaymentNumbers,
    private readonly cashPoints: CashPointsStore,
    private readonly config: CashConfig,
  ) {
    this.ledger = new LedgerTransferStep(bus, LEDGER_TIMEOUT_MS);
  }

  async create(request: CreateCashPaymentRequest): Promise<CashPaymentResource> {
    const now = this.clock.now();
    const { cashPaymentId } = request;
    const paymentReference = await this.numbers.reserveReference(cashPaymentId);
    const hosted = `${this.config.publicBaseUrl}/hosted/cash_payments/${cashPaymentId}`;
    const created = await this.cashPayments.create(
      cashPaymentId,
      {
        type: 'CreateCashPayment',
        terms: {
          cashPaymentId,
          integratorId: request.integratorId,
          amount: request.amount,
          currency: request.currency,
          orderReference: request.orderReference,
          merchantConnection: request.merchantConnection,
          paymentReference,
          qrCodeUrl: `${hosted}/qr.png`,
          instructionsUrl: `${hosted}/instructions`,
        },
        expiresAt: request.expiresAt === null ? addMs(now, CASH_PAYMENT_TTL_MS_DEFAULT) : new Date(request.expiresAt),
        now,
      },
      request.integratorId,
    );
    return toCashPaymentResource(created);
  }

  async retrieve(ref: CashPaymentRef): Promise<CashPaymentResource> {
    return toCashPaymentResource((await this.visible(ref)).state);
  }

  /** The agent application's look-up: the reference as typed, its check digit verified first. */
  async findByReference(typed: string): Promise<CashPaymentResource> {
    const reference = typeof typed === 'string' ? parsePaymentReference(typed) : null;
    if (reference === null) {
      throw new ServiceError('invalid_request', 'the payment reference is mistyped: it must be 10 digits with a valid check digit', 'reference');
    }
    const cashPaymentId = await this.numbers.paymentOfReference(reference);
    if (!cashPaymentId) throw notFound('cash payment', reference);
    return this.retrieve({ integratorId: null, cashPaymentId });
  }

  async cancel(ref: CashPaymentRef): Promise<CashPaymentResource> {
    const { state } = await this.cashPayments.executeVisible(ref.cashPaymentId, ref.integratorId, { type: 'CancelCashPayment', cashPaymentId: ref.cashPaymentId, now: this.clock.now() });
    return this.resource(state, ref);
  }

  /** The agent validates the cash: the payment must be open and the amount exact; then the ledger credits the merchant. */
  async pay(request: PayCashPaymentRequest): Promise<CashPaymentResource> {
    const from = await this.visible(request);
    const current = toCashPaymentResource(from.state);
    if (!(await this.cashPoints.find(request.cashPointId))) {
      throw new ServiceError('invalid_request', `no such cash point: '${request.cashPointId}'`, 'cash_point');
    }
    // A receipt number only for a payment that looks payable (a lost race burns one: gaps are allowed).
    if (current.status !== 'awaiting_payment') throw new ServiceError('invalid_status', `the cash payment is ${current.status} and cannot be paid`);
    const receiptNumber = await this.numbers.nextReceiptNumber();
    const started = await this.cashPayments.execute(
      request.cashPaymentId,
      { type: 'ValidateCash', cashPaymentId: request.cashPaymentId, cashPointId: request.cashPointId, amount: request.amount, receiptNumber, now: this.clock.now() },
      { from },
    );
    return this.resource(await this.finish(request.cashPaymentId, started), request);
  }

  /** The process's remaining steps for a started validation; a no-op once its outcome is recorded. */
  async finishValidation(cashPaymentId: string): Promise<Existing<CashPayment>> {
    return this.finish(cashPaymentId, await this.cashPayments.loadExisting(cashPaymentId));
  }

  /** The ledger step of a started validation, then its outcome (see LedgerTransferStep). */
  private finish(cashPaymentId: string, current: Loaded<CashPayment>): Promise<Existing<CashPayment>> {
    return this.ledger.finish(
      this.cashPayments,
      cashPaymentId,
      current,
      (state) => {
        if (state.status !== 'awaiting_payment' || !state.validation) return null;
        const { terms, validation } = state;
        return {
          transfer: {
            operationId: validation.operationId,
            reference: cashPaymentId,
            useCase: 'cash_payment',
            feeMode: 'deducted',
            debitOwner: `platform:cash:${terms.currency}`,
            creditOwner: terms.merchantConnection,
            amount: terms.amount,
            currency: terms.currency,
          },
          complete: (transfer) => {
            if (transfer.status !== 'completed') throw new Error(`cash payment ${cashPaymentId}: the ledger refused the cash account's debit (${transfer.reason})`);
            const outcome = { entryId: transfer.entryId, feeAmount: transfer.feeAmount, netAmount: transfer.netAmount };
            return { type: 'CompleteCashValidation' as const, cashPaymentId, outcome, now: this.clock.now() };
          },
        };
      },
      'cash.after-ledger-transfer',
    );
  }

  async instructionsPage(cashPaymentId: string, context: InstructionsPageContext): Promise<{ html: string }> {
    const payment = await this.retrieve({ integratorId: null, cashPaymentId });
    return { html: renderInstructionsPage(payment, await this.cashPoints.list(CASH_POINTS_ON_PAGE_MAX), context) };
  }

  async qrCode(cashPaymentId: string): Promise<{ pngBase64: string }> {
    const payment = await this.retrieve({ integratorId: null, cashPaymentId });
    return { pngBase64: (await renderQrCodePng(payment.payment_reference)).toString('base64') };
  }

  private visible(ref: CashPaymentRef): Promise<Loaded<Existing<CashPayment>>> {
    return this.cashPayments.loadVisible(ref.cashPaymentId, ref.integratorId);
  }

  private resource(state: CashPayment, ref: CashPaymentRef): CashPaymentResource {
    return toCashPaymentResource(this.cashPayments.visible(state, ref.cashPaymentId, ref.integratorId));
  }
}
