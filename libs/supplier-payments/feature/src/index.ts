export * from './supplier-payments.module';
export { SupplierPaymentsService } from './supplier-payments.service';
