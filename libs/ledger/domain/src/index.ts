export * from './accounts';
export * from './fee-schedule';
export * from './postings';
export * from './transfer-plan';
export * from './transfer-batch';
export * from './chain';
