export * from './collections.module';
export * from './collections.service';
