import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type MessageKeys } from './common';
import type { ListResource } from './resources';

/** The supplier-payments app: beneficiaries of businesses and the supplier payments made to them. */

export interface BeneficiaryResource {
  id: string;
  object: 'beneficiary';
  account_name: string;
  status: 'authorized' | 'revoked';
  created_at: string;
}

/** The admin view adds the business and the currency of the beneficiary's account. */
export interface AdminBeneficiaryResource extends BeneficiaryResource {
  business: string;
  currency: Currency;
}

export interface CreateBeneficiary {
  beneficiaryId: string;
  /** The business connection, checked by the gateway, and the integrator it belongs to. */
  business: string;
  integratorId: string;
  accountName: string;
  currency: Currency;
}

/** A beneficiary as its business sees it: another business's beneficiary is not found. */
export interface BeneficiaryRef {
  beneficiaryId: string;
  /** The payer connection, already checked by the gateway to be the caller's. */
  business: string;
}

export const SUPPLIER_PAYMENT_STATUSES = ['awaiting_approval', 'succeeded', 'rejected', 'declined', 'canceled', 'expired'] as const;
export type SupplierPaymentStatus = (typeof SUPPLIER_PAYMENT_STATUSES)[number];
export type SupplierPaymentDeclineReason = 'insufficient_balance' | 'beneficiary_unavailable';

export interface SupplierPaymentResource {
  id: string;
  object: 'supplier_payment';
  status: SupplierPaymentStatus;
  decline_reason: SupplierPaymentDeclineReason | null;
  payer_connection: string;
  beneficiary: string;
  amount: number;
  currency: Currency;
  invoice_reference: string;
  description: string | null;
  approval_url: string | null;
  fee_amount: number | null;
  expires_at: string;
  approved_at: string | null;
  succeeded_at: string | null;
  created_at: string;
}

export interface CreateSupplierPaymentRequest {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same payment. */
  supplierPaymentId: string;
  integratorId: string;
  /** The payer connection, checked by the gateway to be the caller's, and the currency of its account. */
  payerConnection: string;
  payerCurrency: Currency;
  beneficiary: string;
  amount: number;
  currency: Currency;
  invoiceReference: string;
  description: string | null;
}

/** integratorId null: the hosted approval page, which reaches a payment by its unguessable id alone. */
export interface SupplierPaymentRef {
  integratorId: string | null;
  supplierPaymentId: string;
}

export interface ListSupplierPayments {
  integratorId: string;
  limit: number;
  startingAfter?: string;
  invoiceReference?: string;
  status?: SupplierPaymentStatus;
}

export interface SupplierPaymentsTopics {
  'supplier-payments.beneficiaries.create': { request: CreateBeneficiary; reply: AdminBeneficiaryResource };
  'supplier-payments.beneficiaries.revoke': { request: { beneficiaryId: string }; reply: AdminBeneficiaryResource };
  'supplier-payments.beneficiaries.retrieve': { request: BeneficiaryRef; reply: BeneficiaryResource };
  'supplier-payments.create': { request: CreateSupplierPaymentRequest; reply: SupplierPaymentResource };
  'supplier-payments.retrieve': { request: SupplierPaymentRef; reply: SupplierPaymentResource };
  'supplier-payments.list': { request: ListSupplierPayments; reply: ListResource<SupplierPaymentResource> };
  'supplier-payments.cancel': { request: SupplierPaymentRef; reply: SupplierPaymentResource };
  /** Run by the hosted approval page (and the sandbox helper): the authorized user approves. */
  'supplier-payments.approve': { request: SupplierPaymentRef; reply: SupplierPaymentResource };
  'supplier-payments.reject': { request: SupplierPaymentRef; reply: SupplierPaymentResource };
  'supplier-payments.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const SUPPLIER_PAYMENTS_MESSAGE_KEYS = {
  'supplier-payments.beneficiaries.create': 'beneficiaryId',
  'supplier-payments.beneficiaries.revoke': 'beneficiaryId',
  'supplier-payments.beneficiaries.retrieve': 'beneficiaryId',
  'supplier-payments.create': 'supplierPaymentId',
  'supplier-payments.retrieve': 'supplierPaymentId',
  'supplier-payments.list': null,
  'supplier-payments.cancel': 'supplierPaymentId',
  'supplier-payments.approve': 'supplierPaymentId',
  'supplier-payments.reject': 'supplierPaymentId',
  'supplier-payments.apply-deadlines': null,
} as const satisfies MessageKeys<SupplierPaymentsTopics>;

export const SUPPLIER_PAYMENTS_TOPICS = topicsOf(SUPPLIER_PAYMENTS_MESSAGE_KEYS);
