export * from './event-store';
export * from './command-handler';
export * from './migrations';
export * from './postgres-event-store';
export * from './catch-up-subscription';
export { CheckpointMovedError } from './checkpoint-store';
export { EventStoreDBEventStore, type EventStoreDBEventStoreOptions } from './eventstoredb-event-store';
export * from './state-after';
export * from './sweeper';
