export * from './database';
export * from './given-when-then';
export * from './decider-model';
/** The Kafka mock cluster (tools/kafka-mock, also the distributed launcher's), for the Kafka tests. */
export * from '@pay/kafka-mock';
