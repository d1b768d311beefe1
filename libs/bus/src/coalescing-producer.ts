import type { Message, ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';

/** The part of a kafkajs producer the coalescing send uses. */
export interface BatchingProducer {
  send(record: ProducerRecord): Promise<RecordMetadata[]>;
  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]>;
}

interface Pending {
  topic: string;
  messages: Message[];
  resolve(metadata: RecordMetadata[]): void;
  reject(error: unknown): void;
}

/**
 * A producer's `send`, coalescing: a send made while another is in flight waits for it, then leaves
 * with every send that queued meanwhile as one produce request (one record batch per partition), at
 * most `maxMessages` messages. A lone send leaves at once, so an idle bus adds no latency; under load
 * the requests grow instead of multiplying (group commit). Each caller gets the batch's outcome: its
 * topic's metadata, or the batch's error (the messages of a failed produce request are not written).
 *
 * Why: a consumer fetches a partition's record batches one produce request at a time on librdkafka's
 * mock cluster, and real brokers pay per request too; the replies of a busy app are many small sends
 * to a few reply partitions.
 *
 * Sends that set acks, timeout or compression of their own go alone (a batch has one of each).
 */
export function coalescingSend(producer: BatchingProducer, maxMessages: number): (record: ProducerRecord) => Promise<RecordMetadata[]> {
  if (!Number.isInteger(maxMessages) || maxMessages < 1) throw new RangeError(`maxMessages must be a positive integer, got ${maxMessages}`);
  const send = producer.send.bind(producer);
  const sendBatch = producer.sendBatch.bind(producer);
  let inFlight = 0;
  const queue: Pending[] = [];

  const flush = (): void => {
    if (inFlight > 0 || queue.length === 0) return;
    const batch: Pending[] = [];
    let count = 0;
    while (queue.length > 0 && (batch.length === 0 || count + queue[0]!.messages.length <= maxMessages)) {
      const next = queue.shift()!;
      count += next.messages.length;
      batch.push(next);
    }
    inFlight += 1;
    const topicMessages = batch.map(({ topic, messages }) => ({ topic, messages }));
    sendBatch({ topicMessages })
      .then(
        (metadata) => {
          for (const pending of batch) pending.resolve(metadata.filter((entry) => entry.topicName === pending.topic));
        },
        (error: unknown) => {
          for (const pending of batch) pending.reject(error);
        },
      )
      .finally(() => {
        inFlight -= 1;
        flush();
      });
  };

  return (record) => {
    const { topic, messages, ...options } = record;
    if (Object.values(options).some((value) => value !== undefined)) return send(record);
    return new Promise<RecordMetadata[]>((resolve, reject) => {
      queue.push({ topic, messages, resolve, reject });
      flush();
    });
  };
}
