import { APP_NAMES, KAFKA_REQUEST_TOPICS, REQUEST_TOPIC_OWNER, REQUEST_TOPICS, replyTopicOf, requestTopicOf } from '@pay/contracts';
import { kafkaTopicsFor } from './kafka-bus';

describe('kafkaTopicsFor', () => {
  it('lists one request topic per serving app and one reply topic per app (not two per request topic), with their partitions', () => {
    const topics = kafkaTopicsFor(REQUEST_TOPICS, 4, 2);
    const servingApps = [...new Set(Object.values(REQUEST_TOPIC_OWNER))];
    expect(topics.filter((t) => t.partitions === 2).map((t) => t.name)).toEqual(servingApps.map((app) => `${app}.requests`));
    expect(topics.filter((t) => t.partitions === 4).map((t) => t.name)).toEqual(APP_NAMES.map((app) => `${app}.replies`));
    expect(new Set(topics.map((t) => t.name)).size).toBe(topics.length);
    expect(KAFKA_REQUEST_TOPICS).toEqual(servingApps.map(requestTopicOf));
    expect(replyTopicOf('gateway')).toBe('gateway.replies');
  });

  it("lists only the request topics of the apps serving the topics asked for", () => {
    expect(kafkaTopicsFor(['ledger.transfer', 'ledger.get-balance'], 1).map((t) => t.name)).toEqual(['ledger.requests', ...APP_NAMES.map(replyTopicOf)]);
  });

  it('refuses partition counts that are not positive integers', () => {
    expect(() => kafkaTopicsFor(REQUEST_TOPICS, 0)).toThrow(/replyPartitions/);
    expect(() => kafkaTopicsFor(REQUEST_TOPICS, 4, 1.5)).toThrow(/requestPartitions/);
  });
});
