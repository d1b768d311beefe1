import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type MessageKeys } from './common';
import { amount, currency, id, type ListResource } from './resources';
import { literal, named, nullable, object, oneOfValues, string, time, type Static } from './schema';

/** The supplier-payments app: beneficiaries of businesses and the supplier payments made to them. */

export const BENEFICIARY_STATUSES = ['authorized', 'revoked'] as const;

const beneficiaryFields = { id: id('ben_'), object: literal('beneficiary'), account_name: string(), status: oneOfValues(BENEFICIARY_STATUSES), created_at: time() };

export const BeneficiaryResource = named('Beneficiary', object(beneficiaryFields));
export type BeneficiaryResource = Static<typeof BeneficiaryResource>;

/** The admin view adds the business and the currency of the beneficiary's account. */
export const AdminBeneficiaryResource = named('AdminBeneficiary', object({ ...beneficiaryFields, business: id('conn_'), currency: currency() }));
export type AdminBeneficiaryResource = Static<typeof AdminBeneficiaryResource>;

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
export const SUPPLIER_PAYMENT_DECLINE_REASONS = ['insufficient_balance', 'beneficiary_unavailable'] as const;
export type SupplierPaymentDeclineReason = (typeof SUPPLIER_PAYMENT_DECLINE_REASONS)[number];

export const SupplierPaymentResource = named(
  'SupplierPayment',
  object(
    {
      id: id('spay_'),
      object: literal('supplier_payment'),
      status: oneOfValues(SUPPLIER_PAYMENT_STATUSES),
      decline_reason: nullable(oneOfValues(SUPPLIER_PAYMENT_DECLINE_REASONS)),
      payer_connection: id('conn_'),
      beneficiary: id('ben_'),
      amount: amount(),
      currency: currency(),
      invoice_reference: string(),
      description: nullable(string()),
      approval_url: nullable(string({ format: 'uri' })),
      fee_amount: nullable(amount()),
      expires_at: time('The approval deadline.'),
      approved_at: nullable(time()),
      succeeded_at: nullable(time()),
      created_at: time(),
    },
    { description: 'A business pays a supplier (a beneficiary) once an authorized user approves it.' },
  ),
);
export type SupplierPaymentResource = Static<typeof SupplierPaymentResource>;

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
  /** Any beneficiary by id, as the admin API shows it (the gateway's audit trail reads a change back after a crash). */
  'supplier-payments.beneficiaries.find': { request: { beneficiaryId: string }; reply: AdminBeneficiaryResource };
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
  'supplier-payments.beneficiaries.find': 'beneficiaryId',
  'supplier-payments.create': 'supplierPaymentId',
  'supplier-payments.retrieve': 'supplierPaymentId',
  'supplier-payments.list': null,
  'supplier-payments.cancel': 'supplierPaymentId',
  'supplier-payments.approve': 'supplierPaymentId',
  'supplier-payments.reject': 'supplierPaymentId',
  'supplier-payments.apply-deadlines': null,
} as const satisfies MessageKeys<SupplierPaymentsTopics>;

export const SUPPLIER_PAYMENTS_TOPICS = topicsOf(SUPPLIER_PAYMENTS_MESSAGE_KEYS);
