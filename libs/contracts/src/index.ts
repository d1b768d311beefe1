export * from './errors';
export * from './resources';
export * from './messages';
export * from './events';
export * from './cash';
export * from './supplier-payments';
export * from './collections';
export * from './reconciliation';
