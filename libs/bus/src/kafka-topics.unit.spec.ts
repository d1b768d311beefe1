import { APP_NAMES, REQUEST_TOPICS, replyTopicOf } from '@pay/contracts';
import { kafkaTopicsFor } from './kafka-bus';

describe('kafkaTopicsFor', () => {
  it('lists every request topic and one reply topic per app (not one per request topic), with their partitions', () => {
    const topics = kafkaTopicsFor(REQUEST_TOPICS, 4, 2);
    expect(topics.filter((t) => t.partitions === 2).map((t) => t.name)).toEqual(REQUEST_TOPICS);
    expect(topics.filter((t) => t.partitions === 4).map((t) => t.name)).toEqual(APP_NAMES.map((app) => `${app}.replies`));
    expect(new Set(topics.map((t) => t.name)).size).toBe(topics.length);
    expect(replyTopicOf('gateway')).toBe('gateway.replies');
  });

  it('refuses partition counts that are not positive integers', () => {
    expect(() => kafkaTopicsFor(REQUEST_TOPICS, 0)).toThrow(/replyPartitions/);
    expect(() => kafkaTopicsFor(REQUEST_TOPICS, 4, 1.5)).toThrow(/requestPartitions/);
  });
});
