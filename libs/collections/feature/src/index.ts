export * from './collections.module';
