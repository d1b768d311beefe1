import { parse, parseAllDocuments } from 'yaml';
import { KAFKA_TOPIC_SETTINGS, kafkaTopicSettingsFor, type KafkaTopicSettings } from '@pay/contracts';

/**
 * Where topics are created outside the code, each with the settings it must use: docker-compose.yml's
 * kafka-init (one broker) and deploy/k8s's kafka-topics Job (three brokers or more). Both pass the
 * settings as environment variables to kafka-topics.sh.
 */
const VARIABLES: Record<keyof KafkaTopicSettings, { name: string; flag: (ref: string) => string }> = {
  partitions: { name: 'PARTITIONS', flag: (ref) => `--partitions "${ref}"` },
  replicationFactor: { name: 'REPLICATION_FACTOR', flag: (ref) => `--replication-factor "${ref}"` },
  minInsyncReplicas: { name: 'MIN_INSYNC_REPLICAS', flag: (ref) => `--config "min.insync.replicas=${ref}"` },
  retentionMs: { name: 'RETENTION_MS', flag: (ref) => `--config "retention.ms=${ref}"` },
};

/** What differs between the topics a creator makes (its environment and command) and `expected`. */
function creatorProblems(where: string, env: Record<string, unknown>, command: string, expected: KafkaTopicSettings, ref: (name: string) => string): string[] {
  const problems: string[] = [];
  for (const [key, { name, flag }] of Object.entries(VARIABLES) as [keyof KafkaTopicSettings, (typeof VARIABLES)[keyof KafkaTopicSettings]][]) {
    const value = env[name];
    if (String(value) !== String(expected[key])) problems.push(`${where}: ${name} is ${value === undefined ? 'not set' : JSON.stringify(value)}, the declaration (libs/contracts KAFKA_TOPIC_SETTINGS) says ${expected[key]}`);
    if (!command.includes(flag(ref(name)))) problems.push(`${where}: the command does not pass ${flag(ref(name))}`);
  }
  return problems;
}

/** docker-compose.yml's kafka-init against the declaration for one broker. */
export function composeTopicProblems(composeText: string): string[] {
  const doc = parse(composeText) as { services?: Record<string, { environment?: Record<string, unknown>; command?: unknown }> };
  const init = doc.services?.['kafka-init'];
  if (!init) return ['docker-compose.yml: no kafka-init service'];
  // One Kafka service in the file: a single broker.
  return creatorProblems('docker-compose.yml kafka-init', init.environment ?? {}, JSON.stringify(init.command ?? '').replace(/\\"/g, '"'), kafkaTopicSettingsFor(1), (name) => `$$${name}`);
}

/** deploy/k8s/kafka-topics-job.yaml's container against the declaration for three brokers or more. */
export function k8sTopicProblems(jobText: string): string[] {
  const docs = parseAllDocuments(jobText);
  if (!Array.isArray(docs)) return ['kafka-topics-job.yaml does not parse'];
  const job = docs.map((d) => d.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: { name: string; env?: { name: string; value?: string }[]; command?: string[]; args?: string[] }[] } } } }).find((d) => d.kind === 'Job');
  const container = job?.spec?.template?.spec?.containers?.find((c) => c.name === 'create-topics');
  if (!container) return ['kafka-topics-job.yaml: no Job with a create-topics container'];
  const env = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
  return creatorProblems('deploy/k8s kafka-topics Job', env, [...(container.command ?? []), ...(container.args ?? [])].join('\n'), KAFKA_TOPIC_SETTINGS, (name) => `$${name}`);
}
