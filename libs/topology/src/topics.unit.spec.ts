import { kafkaTopicsFor } from '@pay/bus';
import { KAFKA_TOPIC_SETTINGS, REQUEST_TOPICS } from '@pay/contracts';
import { KAFKA_REPLY_PARTITIONS } from '@pay/kernel';

describe('the topics a distributed topology creates on a local cluster', () => {
  it('have the partitions libs/contracts declares (KAFKA_TOPIC_SETTINGS), every one', () => {
    const topics = kafkaTopicsFor(REQUEST_TOPICS, KAFKA_REPLY_PARTITIONS);
    expect(topics.length).toBeGreaterThan(0);
    for (const topic of topics) expect([topic.name, topic.partitions]).toEqual([topic.name, KAFKA_TOPIC_SETTINGS.partitions]);
  });
});
