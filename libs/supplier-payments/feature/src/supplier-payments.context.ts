import { notFound } from '@pay/contracts';
import { AggregateRepository, expirySweep, recordWith, relayOf, type ContextDeclaration, type ContextInfrastructure } from '@pay/event-store';
import { searchReferences, statesAfter } from '@pay/platform';
import { expectedSupplierPaymentMovements, SUPPLIER_PAYMENT_EVENT_PREFIX, toSupplierPaymentResource, type SupplierPayment } from '@pay/supplier-payments-domain';
import { BeneficiariesStore, toAdminBeneficiaryResource } from './beneficiaries.store';
import { supplierPaymentAggregate } from './supplier-payment-events';
import { projectSupplierPaymentEvents, SUPPLIER_PAYMENT_SWEEPS, SupplierPaymentViews } from './supplier-payment-projection';
import { SupplierPaymentsService, type SupplierPaymentsConfig } from './supplier-payments.service';

const SUPPLIER_PAYMENT_VIEWS = 'supplier-payments.supplier-payment-views';

/**
 * The supplier-payments app: beneficiaries, and the supplier payments to them behind the bus, with
 * their projection (list, sweeps), the relay of their events, and the sweeps (approval deadlines,
 * stalled approvals).
 */
export function supplierPaymentsContext({ store, bus, clock, pool }: ContextInfrastructure, config: SupplierPaymentsConfig): ContextDeclaration {
  const beneficiaries = new BeneficiariesStore(pool);
  const supplierPayments = new AggregateRepository(store, supplierPaymentAggregate, recordWith(bus));
  const service = new SupplierPaymentsService(supplierPayments, bus, clock, beneficiaries, config);
  const views = new SupplierPaymentViews(pool);
  return {
    app: 'supplier-payments',
    subscriptions: [
      { kind: 'projection', id: SUPPLIER_PAYMENT_VIEWS, typePrefixes: [SUPPLIER_PAYMENT_EVENT_PREFIX], handle: projectSupplierPaymentEvents },
      relayOf('supplier-payments.integration-events', supplierPaymentAggregate),
    ],
    sweeper: {
      tasks: {
        ...expirySweep(pool, SUPPLIER_PAYMENT_SWEEPS, supplierPayments, clock),
        resume: (id) => service.finishApproval(id),
      },
      caughtUpOn: SUPPLIER_PAYMENT_VIEWS,
      options: { process: 'approval' },
    },
    handlers: (caughtUp) => ({
      'supplier-payments.beneficiaries.create': async (request) => {
        // The account first: a crash in between leaves an unused account, never a beneficiary without one.
        await bus.request('ledger.open-account', { owner: request.beneficiaryId, kind: 'beneficiary', currency: request.currency });
        return toAdminBeneficiaryResource(await beneficiaries.create(request, clock.now()));
      },
      'supplier-payments.beneficiaries.revoke': async ({ beneficiaryId }) => {
        const revoked = await beneficiaries.revoke(beneficiaryId, clock.now());
        if (!revoked) throw notFound('beneficiary', beneficiaryId);
        return toAdminBeneficiaryResource(revoked);
      },
      'supplier-payments.beneficiaries.retrieve': (ref) => service.retrieveBeneficiary(ref),
      'supplier-payments.beneficiaries.find': async ({ beneficiaryId }) => {
        const beneficiary = await beneficiaries.find(beneficiaryId);
        if (!beneficiary) throw notFound('beneficiary', beneficiaryId);
        return toAdminBeneficiaryResource(beneficiary);
      },
      'supplier-payments.create': (m) => service.create(m),
      'supplier-payments.retrieve': (m) => service.retrieve(m),
      'supplier-payments.cancel': (m) => service.cancel(m),
      'supplier-payments.approve': (m) => service.approve(m),
      'supplier-payments.reject': (m) => service.reject(m),
      // Read your writes: the list answers "does a payment exist for this invoice?" right after a create.
      'supplier-payments.list': async (m) => {
        await caughtUp(SUPPLIER_PAYMENT_VIEWS);
        return views.list(m);
      },
      // The back office's search, across integrators: the view as it stands, as the payments app's search reads it.
      'supplier-payments.search-references': async ({ reference, limit }) => {
        const rows = await searchReferences<Exclude<SupplierPayment, { status: 'none' }>>(pool, 'sp_supplier_payment_views', ['invoice_reference'], reference, limit);
        return { items: rows.map((r) => ({ integratorId: r.integratorId, field: 'invoice_reference' as const, resource: toSupplierPaymentResource(r.state) })) };
      },
      'supplier-payments.expected-movements': async ({ afterSeq, limit }) => {
        await caughtUp(SUPPLIER_PAYMENT_VIEWS);
        const { states, nextAfterSeq } = await statesAfter<Exclude<SupplierPayment, { status: 'none' }>>(pool, 'sp_supplier_payment_views', afterSeq, limit);
        return { items: states.map(expectedSupplierPaymentMovements), nextAfterSeq };
      },
    }),
  };
}
