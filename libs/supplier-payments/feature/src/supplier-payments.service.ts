import type { MessageBus } from '@pay/bus';
import {
  notFound,
  type BeneficiaryRef,
  type BeneficiaryResource,
  type CreateSupplierPaymentRequest,
  type SupplierPaymentRef,
  type SupplierPaymentResource,
} from '@pay/contracts';
import { LedgerTransferStep, type AggregateRepository, type Existing, type Loaded } from '@pay/event-store';
import { addMs, APPROVAL_TTL_MS_DEFAULT, LEDGER_TIMEOUT_MS, type Clock } from '@pay/kernel';
import {
  toSupplierPaymentResource,
  type ApprovalOutcome,
  type BeneficiaryFacts,
  type SupplierPayment,
  type SupplierPaymentCommand,
  type SupplierPaymentEvent,
} from '@pay/supplier-payments-domain';
import { toBeneficiaryResource, type BeneficiariesStore } from './beneficiaries.store';

export interface SupplierPaymentsConfig {
  publicBaseUrl: string;
  /** How long an authorized user has to approve (contract: 7 days). */
  approvalTtlMs?: number;
  /** A ledger call that takes longer is abandoned by this request and finished by the recovery sweep. */
  ledgerTimeoutMs?: number;
}

export type SupplierPayments = AggregateRepository<SupplierPaymentCommand, SupplierPaymentEvent, SupplierPayment>;

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
  private readonly ledger: LedgerTransferStep;

  constructor(
    private readonly supplierPayments: SupplierPayments,
    bus: MessageBus,
    private readonly clock: Clock,
    private readonly beneficiaries: BeneficiariesStore,
    private readonly config: SupplierPaymentsConfig,
  ) {
    this.approvalTtlMs = config.approvalTtlMs ?? APPROVAL_TTL_MS_DEFAULT;
    this.ledger = new LedgerTransferStep(bus, config.ledgerTimeoutMs ?? LEDGER_TIMEOUT_MS);
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
    const created = await this.supplierPayments.create(
      supplierPaymentId,
      {
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
      },
      request.integratorId,
    );
    return toSupplierPaymentResource(created);
  }

  async retrieve(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    return toSupplierPaymentResource((await this.visible(ref)).state);
  }

  async cancel(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    const { state } = await this.supplierPayments.executeVisible(ref.supplierPaymentId, ref.integratorId, { type: 'CancelSupplierPayment', supplierPaymentId: ref.supplierPaymentId, now: this.clock.now() });
    return this.resource(state, ref);
  }

  async reject(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    const { state } = await this.supplierPayments.executeVisible(ref.supplierPaymentId, ref.integratorId, { type: 'RejectSupplierPayment', supplierPaymentId: ref.supplierPaymentId, now: this.clock.now() });
    return this.resource(state, ref);
  }

  /** The authorized user approves: declined at once if the beneficiary was revoked since creation, else the transfer runs. */
  async approve(ref: SupplierPaymentRef): Promise<SupplierPaymentResource> {
    const from = await this.visible(ref);
    const current = await this.beneficiaries.find(from.state.terms.beneficiary);
    const started = await this.supplierPayments.execute(
      ref.supplierPaymentId,
      { type: 'ApproveSupplierPayment', supplierPaymentId: ref.supplierPaymentId, beneficiaryAvailable: current?.status === 'authorized', now: this.clock.now() },
      { from },
    );
    if (started.state.status !== 'awaiting_approval') return this.resource(started.state, ref);
    return this.resource(await this.finish(ref.supplierPaymentId, started), ref);
  }

  /** The process's remaining steps for a started approval; a no-op once its outcome is recorded. */
  async finishApproval(supplierPaymentId: string): Promise<Existing<SupplierPayment>> {
    return this.finish(supplierPaymentId, await this.supplierPayments.loadExisting(supplierPaymentId));
  }

  /** The ledger step of a started approval, then its outcome (see LedgerTransferStep). */
  private finish(supplierPaymentId: string, current: Loaded<SupplierPayment>): Promise<Existing<SupplierPayment>> {
    return this.ledger.finish(
      this.supplierPayments,
      supplierPaymentId,
      current,
      (state) => {
        if (state.status !== 'awaiting_approval' || !state.approval) return null;
        const { terms, approval } = state;
        return {
          transfer: {
            operationId: approval.operationId,
            reference: supplierPaymentId,
            useCase: 'supplier_payment',
            feeMode: 'added',
            debitOwner: terms.payerConnection,
            creditOwner: terms.beneficiary,
            amount: terms.amount,
            currency: terms.currency,
          },
          complete: (transfer) => {
            const outcome: ApprovalOutcome =
              transfer.status === 'completed'
                ? { status: 'completed', entryId: transfer.entryId, feeAmount: transfer.feeAmount, debitedAmount: transfer.debitedAmount }
                : transfer;
            return { type: 'CompleteApproval' as const, supplierPaymentId, outcome, now: this.clock.now() };
          },
        };
      },
      'supplier-payments.after-ledger-transfer',
    );
  }

  private visible(ref: SupplierPaymentRef): Promise<Loaded<Existing<SupplierPayment>>> {
    return this.supplierPayments.loadVisible(ref.supplierPaymentId, ref.integratorId);
  }

  private resource(state: SupplierPayment, ref: SupplierPaymentRef): SupplierPaymentResource {
    return toSupplierPaymentResource(this.supplierPayments.visible(state, ref.supplierPaymentId, ref.integratorId));
  }
}
