export * from './database';
export * from './given-when-then';
export * from './decider-model';
/** Apache Kafka (tools/kafka) and the mock cluster (tools/kafka-mock), as the distributed launcher starts them, for the Kafka tests. */
export * from '@pay/kafka-mock';
export * from '@pay/kafka';
/** The API-description tools (Redocly, Spectral, openapi-typescript, openapi-fetch) the tests run. */
export * from './openapi-tools';
export * from './transfers';
export * from './set-up';
export * from './tcp-proxy';
/** The pain.001 XSD check (xmllint) of the payouts' bank files. */
export * from './pain001-schema';
