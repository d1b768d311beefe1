import type { ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';
import { coalescingSend, type BatchingProducer } from './coalescing-producer';

/** kafkajs' producer as far as coalescingSend sees it: each produce request recorded, answered when the test says. */
class RecordingProducer implements BatchingProducer {
  readonly batches: { topicMessages: { topic: string; values: string[] }[]; answer(error?: Error): void }[] = [];
  readonly alone: ProducerRecord[] = [];

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    this.alone.push(record);
    return Promise.resolve([]);
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return new Promise((resolve, reject) => {
      const topicMessages = (batch.topicMessages ?? []).map(({ topic, messages }) => ({ topic, values: messages.map((m) => String(m.value)) }));
      const metadata = topicMessages.map(({ topic }) => ({ topicName: topic, partition: 0, errorCode: 0 }) as RecordMetadata);
      this.batches.push({ topicMessages, answer: (error) => (error ? reject(error) : resolve(metadata)) });
    });
  }
}

const record = (topic: string, ...values: string[]): ProducerRecord => ({ topic, messages: values.map((value) => ({ value })) });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescingSend', () => {
  it('a lone send leaves at once, as a produce request of its own', async () => {
    const producer = new RecordingProducer();
    const send = coalescingSend(producer, 10);
    const sent = send(record('a.reply', 'x'));
    expect(producer.batches.map((b) => b.topicMessages)).toEqual([[{ topic: 'a.reply', values: ['x'] }]]);
    producer.batches[0]!.answer();
    expect(await sent).toEqual([{ topicName: 'a.reply', partition: 0, errorCode: 0 }]);
  });

  it('sends made while one is in flight leave together after it, each answered with its own topic', async () => {
    const producer = new RecordingProducer();
    const send = coalescingSend(producer, 10);
    const first = send(record('a.reply', '1'));
    const second = send(record('b.reply', '2'));
    const third = send(record('a.reply', '3'));
    expect(producer.batches).toHaveLength(1);
    producer.batches[0]!.answer();
    await first;
    await settle();
    expect(producer.batches[1]!.topicMessages).toEqual([
      { topic: 'b.reply', values: ['2'] },
      { topic: 'a.reply', values: ['3'] },
    ]);
    producer.batches[1]!.answer();
    expect((await second).map((m) => m.topicName)).toEqual(['b.reply']);
    expect((await third).map((m) => m.topicName)).toEqual(['a.reply']);
  });

  it('a failed produce request fails its own senders only; the queue goes on', async () => {
    const producer = new RecordingProducer();
    const send = coalescingSend(producer, 10);
    const first = send(record('a.reply', '1'));
    const second = send(record('a.reply', '2'));
    producer.batches[0]!.answer(new Error('leader not available'));
    await expect(first).rejects.toThrow('leader not available');
    await settle();
    producer.batches[1]!.answer();
    await expect(second).resolves.toHaveLength(1);
  });

  it('a batch holds at most maxMessages messages (a larger send still leaves, alone)', async () => {
    const producer = new RecordingProducer();
    const send = coalescingSend(producer, 3);
    const sends = [send(record('t', '0')), send(record('t', '1', '2')), send(record('t', '3', '4')), send(record('t', '5', '6', '7', '8'))];
    for (let i = 0; i < 4; i++) {
      await settle();
      producer.batches[i]?.answer();
    }
    await Promise.all(sends);
    expect(producer.batches.map((b) => b.topicMessages.flatMap((t) => t.values))).toEqual([['0'], ['1', '2'], ['3', '4'], ['5', '6', '7', '8']]);
  });

  it('a send with options of its own (acks, timeout, compression) goes alone', async () => {
    const producer = new RecordingProducer();
    const send = coalescingSend(producer, 10);
    await send({ ...record('t', 'x'), acks: 1 });
    expect(producer.alone).toHaveLength(1);
    expect(producer.batches).toHaveLength(0);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => coalescingSend(new RecordingProducer(), 0)).toThrow(RangeError);
  });
});
