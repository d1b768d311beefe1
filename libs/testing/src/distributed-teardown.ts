import type { KafkaCluster } from '@pay/kafka';
import globalTeardown from './global-teardown';

export default async function distributedGlobalTeardown(): Promise<void> {
  const { __testKafka: kafka } = globalThis as { __testKafka?: KafkaCluster };
  await kafka?.stop();
  await globalTeardown();
}
