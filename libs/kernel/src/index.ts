export * from './limits';
export * from './money';
export * from './ids';
export * from './clock';
export * from './failpoint';
export * from './config';
export * from './display';
export * from './decider';
