export * from './cash.module';
export { CashPaymentsService } from './cash-payments.service';
