import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KAFKA_TOPIC_SETTINGS, kafkaTopicConfig, kafkaTopicSettingsFor } from '@pay/contracts';
import { KAFKA_REPLY_PARTITIONS } from '@pay/kernel';
import { composeTopicProblems, k8sTopicProblems } from './topic-settings';

/**
 * The topic settings are declared once (libs/contracts KAFKA_TOPIC_SETTINGS); the local clusters, the
 * compose file and the Kubernetes Job create topics with them. Each of these fails here when it drifts.
 */
const root = join(__dirname, '..', '..');
const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
const job = readFileSync(join(root, 'deploy/k8s/kafka-topics-job.yaml'), 'utf8');

describe('Kafka topic settings, declared once', () => {
  it('declares a partition per possible caller instance (the topology creates its topics so: libs/topology topics.unit.spec.ts)', () => {
    expect(KAFKA_TOPIC_SETTINGS.partitions).toBe(KAFKA_REPLY_PARTITIONS);
  });

  it('replicates as far as a cluster allows: one node 1 (and 1 in sync), three or more the declaration', () => {
    expect(KAFKA_TOPIC_SETTINGS).toMatchObject({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(kafkaTopicSettingsFor(1)).toEqual({ ...KAFKA_TOPIC_SETTINGS, replicationFactor: 1, minInsyncReplicas: 1 });
    expect(kafkaTopicSettingsFor(2)).toEqual({ ...KAFKA_TOPIC_SETTINGS, replicationFactor: 2, minInsyncReplicas: 1 });
    expect(kafkaTopicSettingsFor(3)).toEqual(KAFKA_TOPIC_SETTINGS);
    expect(kafkaTopicSettingsFor(5)).toEqual(KAFKA_TOPIC_SETTINGS);
    expect(() => kafkaTopicSettingsFor(0)).toThrow(RangeError);
  });

  it("gives a topic's own settings as the local clusters create them (CreateTopics' configEntries)", () => {
    expect(kafkaTopicConfig(kafkaTopicSettingsFor(3))).toEqual({ 'min.insync.replicas': '2', 'retention.ms': String(KAFKA_TOPIC_SETTINGS.retentionMs) });
  });

  it("docker-compose.yml's kafka-init creates topics with the declaration for its one broker", () => {
    expect(composeTopicProblems(compose)).toEqual([]);
  });

  it("deploy/k8s's kafka-topics Job creates topics with the declaration", () => {
    expect(k8sTopicProblems(job)).toEqual([]);
  });

  it('names each drift: a value changed, a setting the command no longer passes', () => {
    expect(composeTopicProblems(compose.replace('RETENTION_MS: 86400000', 'RETENTION_MS: 3600000'))).toEqual([
      expect.stringMatching(/kafka-init: RETENTION_MS is 3600000, the declaration .* says 86400000/),
    ]);
    expect(composeTopicProblems(compose.replace(' --config "min.insync.replicas=$$MIN_INSYNC_REPLICAS"', ''))).toEqual([expect.stringMatching(/does not pass --config "min.insync.replicas=\$\$MIN_INSYNC_REPLICAS"/)]);
    expect(k8sTopicProblems(job.replace('{ name: MIN_INSYNC_REPLICAS, value: "2" }', '{ name: MIN_INSYNC_REPLICAS, value: "1" }'))).toEqual([expect.stringMatching(/Job: MIN_INSYNC_REPLICAS is "1", the declaration .* says 2/)]);
    expect(k8sTopicProblems(job.replace('{ name: PARTITIONS, value: "4" }', '{ name: PARTITIONS, value: "8" }'))).toEqual([expect.stringMatching(/PARTITIONS is "8"/)]);
  });
});
