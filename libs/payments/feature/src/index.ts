export * from './payments.module';
export * from './payments.service';
