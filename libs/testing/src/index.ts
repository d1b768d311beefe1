export * from './database';
export * from './given-when-then';
export * from './kafka-mock';
export * from './decider-model';
