import { kafkaAvailability, kafkaVersion, startKafka } from './launcher';

/**
 * Makes the first local start as quick as the next ones: fetches the pinned Apache Kafka into the
 * cache (Maven), formats the storage templates, and starts and stops a node once so that its JVM
 * writes the class-data archive. CI runs it before the distributed tests; it is idempotent.
 *
 *   node tools/run.js tools/kafka/prepare.ts
 */
async function main(): Promise<void> {
  const available = kafkaAvailability();
  if (!available.ok) throw new Error(`Apache Kafka cannot run here: ${available.reason}`);
  for (const brokers of [1, 3]) {
    const startedAt = Date.now();
    const cluster = await startKafka({ brokers, topics: [{ name: 'prepare', partitions: 1 }] });
    const readyMs = Date.now() - startedAt;
    await cluster.stop();
    process.stdout.write(`Apache Kafka ${kafkaVersion()}: ${brokers} node(s) ready in ${readyMs} ms at ${cluster.bootstrapServers}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
