export * from './accounts';
export * from './fee-schedule';
export * from './postings';
export * from './transfer-plan';
