import { kafkaAvailability, startKafka, type KafkaCluster } from '@pay/kafka';
import globalSetup from './global-setup';

/**
 * `npm run test:distributed`'s global setup: the shared PostgreSQL of every jest run, and one Apache
 * Kafka for every suite. A node's start costs seconds of CPU: once per run instead of once per suite.
 * Each suite's topology creates its topics and consumer groups on it under a prefix of its own
 * (startDistributedTopology, TOPOLOGY_SHARED_KAFKA), so nothing crosses between suites; a suite that
 * wants another node count (the three-broker fault test) starts its own cluster. Nothing is started
 * with KAFKA_BROKERS given, where Apache Kafka cannot run (each suite then starts the mock cluster and
 * says why), or with TEST_KAFKA_SHARED=false (a cluster per suite, as a suite run alone gets it).
 */
export default async function distributedGlobalSetup(): Promise<void> {
  await globalSetup();
  if (process.env['KAFKA_BROKERS'] || process.env['TEST_KAFKA_SHARED'] === 'false' || !kafkaAvailability().ok) return;
  const nodes = Number(process.env['KAFKA_BROKERS_COUNT'] || '1');
  const started = Date.now();
  const cluster: KafkaCluster = await startKafka({ brokers: nodes, topics: [] });
  process.env['TOPOLOGY_SHARED_KAFKA'] = cluster.bootstrapServers;
  process.env['TOPOLOGY_SHARED_KAFKA_NODES'] = String(nodes);
  process.stderr.write(`\nKafka: Apache Kafka ${cluster.version} at ${cluster.bootstrapServers} for every suite (${nodes} node(s), started in ${((Date.now() - started) / 1_000).toFixed(1)} s)\n`);
  Object.assign(globalThis, { __testKafka: cluster });
}
