export * from './cash.module';
