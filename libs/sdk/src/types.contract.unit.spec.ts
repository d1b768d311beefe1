import type * as Contract from '@pay/contracts';
import type * as Sdk from './types';

/**
 * The SDK is published without dependencies, so its types are its own; the compiler holds them to the
 * contract's schemas (libs/contracts, the source the OpenAPI document publishes): a field added,
 * removed or retyped on either side fails `npm run typecheck` here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : { sdk: A; contract: B }) : { sdk: A; contract: B };
const same = <A, B>(check: Same<A, B>): Same<A, B> => check;

export const RESOURCES = [
  same<Sdk.Payment, Contract.PaymentResource>(true),
  same<Sdk.Refund, Contract.RefundResource>(true),
  same<Sdk.CashPayment, Contract.CashPaymentResource>(true),
  same<Sdk.SupplierPayment, Contract.SupplierPaymentResource>(true),
  same<Sdk.Beneficiary, Contract.BeneficiaryResource>(true),
  same<Sdk.Collection, Contract.CollectionResource>(true),
  same<Sdk.Balance, Contract.BalanceResource>(true),
  same<Sdk.BalanceTransaction, Contract.BalanceTransactionResource>(true),
  same<Sdk.Clock, Contract.ClockResource>(true),
  same<Sdk.HandoverCode, Contract.HandoverCodeResource>(true),
  same<Sdk.WebhookEndpoint, Contract.WebhookEndpointResource>(true),
  same<Sdk.DeletedWebhookEndpoint, Contract.DeletedWebhookEndpointResource>(true),
  same<Sdk.EndpointDelivery, Contract.EndpointDeliveryResource>(true),
  same<Sdk.EventDelivery, Contract.EndpointDeliveryResource>(true),
  same<Sdk.Recovery, Contract.RecoveryResource>(true),
  same<Sdk.Event, Contract.EventResource>(true),
  same<Sdk.BankAccount, Contract.BankAccountResource>(true),
  same<Sdk.Payout, Contract.PayoutResource>(true),
  same<Sdk.PayoutBatch, Contract.PayoutBatchResource>(true),
  same<Sdk.BankStatementImport, Contract.BankStatementImportResource>(true),
  same<Sdk.AuditEvent, Contract.AuditEventResource>(true),
  same<Sdk.List<Sdk.Payment>, Contract.ListResource<Contract.PaymentResource>>(true),
] as const;

describe('the SDK types', () => {
  it('are the contract’s schemas’ types (checked by the compiler: this file does not compile otherwise)', () => {
    expect(RESOURCES.every((check) => check === true)).toBe(true);
  });
});
