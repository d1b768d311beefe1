import type { MessageBus } from '@pay/bus';
import {
  notFound,
  type BeneficiaryRef,
  type BeneficiaryResource,
  type CreateSupplierPaymentRequest,
  type SupplierPaymentRef,
  type SupplierPaymentResource,
} from '@pay/contracts';
import { fold, handleCommand, type EventStore } from '@pay/event-store';
import { addMs, DAY_MS, failpoint, type Clock } from '@pay/kernel';
import {
  supplierPaymentDecider,
  supplierPaymentStreamId,
  toSupplierPaymentResource,
  type ApprovalOutcome,
  type BeneficiaryFacts,
  type SupplierPayment,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
} from '@pay/supplier-payments-domain';
import { toBeneficiaryResource, type BeneficiariesStore } from './beneficiaries.store';
import { toIntegrationEvent } from './supplier-payment-events';

export interface SupplierPaymentsConfig {
  publicBaseUrl: string;
  /** How long an authorized user has to approve (contract: 7 days). */
  approvalTtlMs?: number;
  /** A ledger call that takes longer is abandoned by this request and finished by the recovery sweep. */
  ledgerTimeoutMs?: number;
}

export const APPROVAL_TTL_MS_DEFAULT = 7 * DAY_MS;
export const LEDGER_TIMEOUT_MS_DEFAULT = 10_000;

type Existing = Exclude<SupplierPayment, { status: 'none' }>;

/**
 * The supplier-payments app: the supplier payment aggregate behind the bus, and the approval process
 * between supplier payments and the ledger. The process has two steps, each durable:
 * SupplierPaymentApprovalStarted in the stream, then the ledger transfer (idempotent by the payment's
 * operation id: the business debited amount + fee, the supplier credited amount, the fee to the
 * platform), then the outcome in the stream. Whoever finds a started approval (this request, or the
 * recovery sweep after a crash) runs the remaining steps; replays never debit twice.
 */
export class SupplierPaymentsService {
  private readonly approvalTtlMs: number;
  private readonly ledgerTimeoutMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    private readonly beneficiaries: BeneficiariesStore,
    private readonly config: SupplierPaymentsConfig,
  ) {
    this.approvalTtlMs = config.approvalTtlMs ?? APPROVAL_TTL_MS_DEFAULT;
    this.ledgerTimeoutMs = config.ledgerTimeoutMs ?? LEDGER_TIMEOUT_MS_DEFAULT;
  }

  /** A beneficiary as its business sees it: revoked ones too; another business's is not found. */
  async retrieveBeneficiary(ref: BeneficiaryRef): Promise<BeneficiaryResource> {
    const beneficiary = await this.beneficiaries.find(ref.beneficiaryId);
    if (!beneficiary || beneficiary.businessConnection !== ref.business) throw notFound('beneficiary', ref.beneficiaryId);
    return toBeneficiaryResource(beneficiary);
  }

  async create(request: CreateSupplierPaymentRequest): Promise<SupplierPaymentResource> {
    const now = this.clock.now();
    const { supplierPaymentId } = request;
    const beneficiary = await this.beneficiaries.find(request.beneficiary);
    const facts: BeneficiaryFacts | null = beneficiary
      ? { id: beneficiary.id, business: beneficiary.businessConnection, currency: beneficiary.currency, status: beneficiary.status }
      : null;
    const { state } = await this.execute(supplierPaymentId, {
      type: 'CreateSupplierPayment',
      terms: {
        supplierPaymentId,
        integratorId: request.integratorId,
        payerConnection: request.payerConnection,
        beneficiary: request.beneficiary,
        amount: request.amount,
        currency: request.currency,
        invoiceReference: request.invoiceReference,
        description: request.description,
        approvalUrl: `${this.config.publicBaseUrl}/hosted/supplier_payments/${supplierPaymentId}`,
      },
      payerCurrency: request.payerCurrency,
      beneficiary: facts,
      expiresAt: addMs(now, this.approvalTtlMs),
      now,
    });
    return this.visible(state, { integratorId: request.integratorId, supplierPaymentId });
  }

  async retrieve(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    return this.visible(await this.load(ref.supplierPaymentId), ref);
  }

  async cancel(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    await this.retrieve(ref);
    const { state } = await this.execute(ref.supplierPaymentId, { type: 'CancelSupplierPayment', supplierPaymentId: ref.supplierPaymentId, now: this.clock.now() });
    return this.visible(state, ref);
  }

  async reject(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    await this.retrieve(ref);
    const { state } = await this.execute(ref.supplierPaymentId, { type: 'RejectSupplierPayment', supplierPaymentId: ref.supplierPaymentId, now: this.clock.now() });
    return this.visible(state, ref);
  }

  /** The authorized user approves: declined at once if the beneficiary was revoked since creation, else the transfer runs. */
  async approve(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    const { beneficiary } = await this.retrieve(ref);
    const current = await this.beneficiaries.find(beneficiary);
    const { state } = await this.execute(ref.supplierPaymentId, {
      type: 'ApproveSupplierPayment',
      supplierPaymentId: ref.supplierPaymentId,
      beneficiaryAvailable: current?.status === 'authorized',
      now: this.clock.now(),
    });
    if (state.status !== 'awaiting_approval') return this.visible(state, ref);
    return this.visible(await this.finishApproval(ref.supplierPaymentId), ref);
  }

  /** The process's remaining steps for a started approval; a no-op once its outcome is recorded. */
  async finishApproval(supplierPaymentId: string): Promise<Existing> {
    const state = await this.load(supplierPaymentId);
    if (state.status !== 'awaiting_approval' || !state.approval) return state;
    const { terms, approval } = state;
    const transfer = await this.bus.request(
      'ledger.transfer',
      {
        operationId: approval.operationId,
        reference: supplierPaymentId,
        useCase: 'supplier_payment',
        feeMode: 'added',
        debitOwner: terms.payerConnection,
        creditOwner: terms.beneficiary,
        amount: terms.amount,
        currency: terms.currency,
      },
      { timeoutMs: this.ledgerTimeoutMs },
    );
    failpoint('supplier-payments.after-ledger-transfer');
    const outcome: ApprovalOutcome =
      transfer.status === 'completed'
        ? { status: 'completed', entryId: transfer.entryId, feeAmount: transfer.feeAmount, debitedAmount: transfer.debitedAmount }
        : transfer;
    const { state: after } = await this.execute(supplierPaymentId, { type: 'CompleteApproval', supplierPaymentId, outcome, now: this.clock.now() });
    return after as Existing;
  }

  /** Expires one supplier payment if its approval deadline has passed on the service clock; returns whether it did. */
  async expire(supplierPaymentId: string): Promise<boolean> {
    const { events } = await this.execute(supplierPaymentId, { type: 'ExpireSupplierPayment', supplierPaymentId, now: this.clock.now() });
    return events.length > 0;
  }

  /**
   * Decides and appends; a status change is then recorded with the webhooks app before anyone is
   * answered (the relay records it instead if the process dies in between).
   */
  private async execute(supplierPaymentId: string, command: SupplierPaymentCommand) {
    const handled = await handleCommand<SupplierPaymentCommand, SupplierPaymentEvent, SupplierPayment>(
      this.store,
      supplierPaymentStreamId(supplierPaymentId),
      supplierPaymentDecider,
      command,
      { expectNew: command.type === 'CreateSupplierPayment' },
    );
    const [event, ...more] = handled.events;
    if (event && more.length > 0) throw new Error('a supplier payment command decides at most one event');
    const integrationEvent = event && toIntegrationEvent(event, handled.state, handled.revision);
    if (integrationEvent) await this.bus.request('events.record', integrationEvent);
    return handled;
  }

  private async load(supplierPaymentId: string): Promise<Existing> {
    const state = fold(supplierPaymentDecider, await this.store.readStream(supplierPaymentStreamId(supplierPaymentId)));
    if (state.status === 'none') throw notFound('supplier payment', supplierPaymentId);
    return state;
  }

  /** An integrator sees only its own supplier payments; anything else is as if it did not exist. */
  private visible(state: SupplierPayment, ref: SupplierPaymentRef): SupplierPaymentResource {
    if (state.status === 'none' || (ref.integratorId !== null && state.terms.integratorId !== ref.integratorId)) {
      throw notFound('supplier payment', ref.supplierPaymentId);
    }
    return toSupplierPaymentResource(state);
  }
}
