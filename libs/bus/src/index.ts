export * from './message-bus';
export * from './in-process-bus';
export * from './kafka-bus';
export * from './coalesced-call';
export * from './batching-request';
