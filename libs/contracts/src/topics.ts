import { KAFKA_REPLY_PARTITIONS } from '@pay/kernel';
import { CASH_MESSAGE_KEYS, CASH_TOPICS, type CashTopics } from './cash';
import { COLLECTIONS_MESSAGE_KEYS, COLLECTIONS_TOPICS, type CollectionsTopics } from './collections';
import { APP_NAMES, type AppName, type MessageKeys, type PartitionFields } from './common';
import { CONSOLE_MESSAGE_KEYS, type ConsoleTopics } from './console';
import { LEDGER_MESSAGE_KEYS, LEDGER_PARTITION_FIELDS, LEDGER_TOPICS, type LedgerTopics } from './ledger';
import { operationsTopicsOf, WEBHOOKS_OPERATIONS_TOPICS, type OperationsTopics } from './operations';
import { PAYMENTS_MESSAGE_KEYS, PAYMENTS_TOPICS, type PaymentsTopics } from './payments';
import { RECONCILIATION_MESSAGE_KEYS, type ReconciliationTopics } from './reconciliation';
import { SUPPLIER_PAYMENTS_MESSAGE_KEYS, SUPPLIER_PAYMENTS_TOPICS, type SupplierPaymentsTopics } from './supplier-payments';
import { WEBHOOKS_MESSAGE_KEYS, WEBHOOKS_TOPICS, type WebhooksTopics } from './webhooks';

/**
 * Request/reply messages between apps, by topic. The bus carries them as JSON; a reply is either the
 * value below or an ErrorBody. This map is the whole surface one app may call on another. Each app's
 * file declares its messages, its topics and their message keys, importing only common.ts, resources.ts
 * and events.ts; this file alone composes them, so the contracts have no import circle.
 */
export interface RequestTopics
  extends LedgerTopics,
    PaymentsTopics,
    WebhooksTopics,
    CashTopics,
    SupplierPaymentsTopics,
    CollectionsTopics,
    ReconciliationTopics,
    OperationsTopics,
    ConsoleTopics {}
export type RequestTopic = keyof RequestTopics;

/** Every app that holds deadlines answers this topic family; the clock owner calls each in turn. */
/** In this order: the apps' expiries emit events that the webhooks app then delivers in the same advance. */
export const DEADLINE_TOPICS = [
  'payments.apply-deadlines',
  'cash.apply-deadlines',
  'supplier-payments.apply-deadlines',
  'collections.apply-deadlines',
  'webhooks.apply-deadlines',
] as const satisfies readonly RequestTopic[];

/**
 * The operator's topics (operations.ts): a replay is keyed by its subscription, a bulk redelivery by
 * its endpoint (absent: every one, a random key); the reads are about no entity.
 */
const OPERATIONS_MESSAGE_KEYS = {
  'payments.operations.subscriptions': null,
  'cash.operations.subscriptions': null,
  'supplier-payments.operations.subscriptions': null,
  'collections.operations.subscriptions': null,
  'payments.operations.parked-events': null,
  'cash.operations.parked-events': null,
  'supplier-payments.operations.parked-events': null,
  'collections.operations.parked-events': null,
  'payments.operations.replay-parked': 'subscriptionId',
  'cash.operations.replay-parked': 'subscriptionId',
  'supplier-payments.operations.replay-parked': 'subscriptionId',
  'collections.operations.replay-parked': 'subscriptionId',
  'webhooks.operations.failed-deliveries': null,
  'webhooks.operations.redeliver-failed': 'endpointId',
  'webhooks.operations.failing-endpoints': null,
} as const satisfies MessageKeys<OperationsTopics>;

/**
 * The field of each topic's request whose value keys its Kafka message (so that one object's requests
 * stay in order on one partition); null, or the field absent from a message: a random key. Declared
 * beside each app's topics (common.ts, MessageKeyOf: a request naming an entity is keyed by its id).
 */
export const REQUEST_MESSAGE_KEY: { readonly [T in RequestTopic]: string | null } = {
  ...LEDGER_MESSAGE_KEYS,
  ...PAYMENTS_MESSAGE_KEYS,
  ...WEBHOOKS_MESSAGE_KEYS,
  ...CASH_MESSAGE_KEYS,
  ...SUPPLIER_PAYMENTS_MESSAGE_KEYS,
  ...COLLECTIONS_MESSAGE_KEYS,
  ...RECONCILIATION_MESSAGE_KEYS,
  ...OPERATIONS_MESSAGE_KEYS,
  ...CONSOLE_MESSAGE_KEYS,
} satisfies MessageKeys<RequestTopics>;

/** Topics whose partition is picked by a field of the request rather than by its message key (see LEDGER_PARTITION_FIELDS). */
export const REQUEST_PARTITION_FIELD: { readonly [T in RequestTopic]?: string } = { ...LEDGER_PARTITION_FIELDS } satisfies PartitionFields<RequestTopics>;

const owned = <A extends AppName, T extends RequestTopic>(app: A, topics: readonly T[]) => Object.fromEntries(topics.map((t) => [t, app])) as Record<T, A>;

/**
 * The app serving each request topic. Grouped by app in the order tools/print-request-topics.ts lists
 * them for docker-compose.yml's kafka-init (one line per app).
 */
export const REQUEST_TOPIC_OWNER: { readonly [T in RequestTopic]: AppName } = {
  ...owned('cash', [...CASH_TOPICS, ...operationsTopicsOf('cash'), 'cash.expected-movements']),
  ...owned('supplier-payments', [...SUPPLIER_PAYMENTS_TOPICS, ...operationsTopicsOf('supplier-payments'), 'supplier-payments.expected-movements']),
  ...owned('collections', [...COLLECTIONS_TOPICS, ...operationsTopicsOf('collections'), 'collections.expected-movements']),
  ...owned('payments', [...operationsTopicsOf('payments'), 'payments.expected-movements', ...PAYMENTS_TOPICS]),
  ...owned('webhooks', [...WEBHOOKS_OPERATIONS_TOPICS, ...WEBHOOKS_TOPICS]),
  ...owned('ledger', ['ledger.movements', ...LEDGER_TOPICS]),
  // The console's reads across integrators (console.ts).
  ...owned('payments', ['payments.search-references', 'payments.locate']),
  ...owned('cash', ['cash.search-references']),
  ...owned('supplier-payments', ['supplier-payments.search-references']),
  ...owned('webhooks', ['webhooks.events.locate']),
};

export const REQUEST_TOPICS = Object.keys(REQUEST_TOPIC_OWNER) as RequestTopic[];

/**
 * The Kafka topic an app's requests travel on: one per serving app, whatever the request (the bus
 * carries the request topic in a header), so that a server's consumer reads a few partitions, not
 * four per topic. Keyed by the entity id as before: one entity's requests stay in order.
 */
export const requestTopicOf = (app: AppName): string => `${app}.requests`;

/** Every Kafka request topic: one per app that serves requests. */
export const KAFKA_REQUEST_TOPICS: readonly string[] = [...new Set(Object.values(REQUEST_TOPIC_OWNER))].map(requestTopicOf);

/**
 * The topic an app's requests are answered on: one per calling app, whatever it calls (a partition
 * per instance of the app), so that its reply consumer reads a few partitions, not four per topic.
 */
export const replyTopicOf = (app: AppName): string => `${app}.replies`;

/** Every reply topic, as docker-compose.yml's kafka-init and the Kubernetes Job create them. */
export const REPLY_TOPICS: readonly string[] = APP_NAMES.map(replyTopicOf);

/** How every request and reply topic is created on a cluster. */
export interface KafkaTopicSettings {
  /** One reply partition per caller instance (KAFKA_REPLY_PARTITIONS); request topics as many, read at once. */
  partitions: number;
  replicationFactor: number;
  /** With producers' acks=all, an acknowledged message is on this many brokers. */
  minInsyncReplicas: number;
  /**
   * retention.ms. A request or reply is worthless past its caller's deadline (seconds); a day keeps them
   * for a look after an incident and bounds the disk.
   */
  retentionMs: number;
}

/**
 * The topic settings, declared once, on a cluster of three brokers or more (deploy/k8s's kafka-topics
 * Job): one broker may die without losing an acknowledged message. Smaller clusters take
 * kafkaTopicSettingsFor. The local clusters (tools/kafka), docker-compose.yml's kafka-init and the Job
 * create topics with these; tools/kafka/topic-settings.unit.spec.ts fails when one of them differs.
 */
export const KAFKA_TOPIC_SETTINGS: Readonly<KafkaTopicSettings> = Object.freeze({
  partitions: KAFKA_REPLY_PARTITIONS,
  replicationFactor: 3,
  minInsyncReplicas: 2,
  retentionMs: 24 * 60 * 60 * 1_000,
});

/** The settings on a cluster of `brokers` nodes: replicated as far as its nodes allow, a write never waiting for every replica. */
export function kafkaTopicSettingsFor(brokers: number): KafkaTopicSettings {
  if (!Number.isInteger(brokers) || brokers < 1) throw new RangeError(`brokers must be a positive integer, got ${brokers}`);
  const replicationFactor = Math.min(KAFKA_TOPIC_SETTINGS.replicationFactor, brokers);
  const minInsyncReplicas = Math.max(1, Math.min(KAFKA_TOPIC_SETTINGS.minInsyncReplicas, replicationFactor - 1));
  return { ...KAFKA_TOPIC_SETTINGS, replicationFactor, minInsyncReplicas };
}

/** A topic's own settings (kafka-topics.sh --config, CreateTopics' configEntries). */
export function kafkaTopicConfig(settings: KafkaTopicSettings): Record<string, string> {
  return { 'min.insync.replicas': String(settings.minInsyncReplicas), 'retention.ms': String(settings.retentionMs) };
}
