export * from './supplier-payments.module';
export { SupplierPaymentsService, APPROVAL_TTL_MS_DEFAULT } from './supplier-payments.service';
