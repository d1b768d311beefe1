import type { Currency } from '@pay/kernel';
import type { ApplyDeadlines, DeadlinesApplied } from './messages';

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

export interface SupplierPaymentsTopics {
  'supplier-payments.beneficiaries.create': { request: CreateBeneficiary; reply: AdminBeneficiaryResource };
  'supplier-payments.beneficiaries.revoke': { request: { beneficiaryId: string }; reply: AdminBeneficiaryResource };
  'supplier-payments.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}

export const SUPPLIER_PAYMENTS_TOPICS = [
  'supplier-payments.beneficiaries.create',
  'supplier-payments.beneficiaries.revoke',
  'supplier-payments.apply-deadlines',
] as const satisfies readonly (keyof SupplierPaymentsTopics)[];
