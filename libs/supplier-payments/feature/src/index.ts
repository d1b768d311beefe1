export * from './supplier-payments.module';
