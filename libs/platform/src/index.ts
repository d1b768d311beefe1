export * from './embedded-postgres';
export * from './migrations';
export * from './service-clock';
export * from './pool';
export * from './tokens';
export * from './list-page';
export * from './service-databases';
export * from './columns';
