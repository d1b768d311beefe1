import { DEADLINE_TOPICS, REQUEST_MESSAGE_KEY, REQUEST_TOPIC_OWNER, REQUEST_TOPICS, type AppName } from './index';

const APPS: readonly AppName[] = ['payments', 'ledger', 'webhooks', 'cash', 'supplier-payments', 'collections'];

describe('request topics', () => {
  it('lists every topic once', () => {
    expect(new Set(REQUEST_TOPICS).size).toBe(REQUEST_TOPICS.length);
  });

  it('serves each topic by exactly the app its name starts with (events.record and events.record-batch: the webhooks app)', () => {
    for (const topic of REQUEST_TOPICS) {
      const expected = topic.startsWith('events.') ? 'webhooks' : APPS.find((app) => topic.startsWith(`${app}.`));
      expect([topic, REQUEST_TOPIC_OWNER[topic]]).toEqual([topic, expected]);
    }
  });

  it('declares the message key of every topic, and of no other', () => {
    expect(Object.keys(REQUEST_MESSAGE_KEY).sort()).toEqual([...REQUEST_TOPICS].sort());
  });

  it('applies deadlines through request topics, the webhooks app last (it delivers what the others emitted)', () => {
    for (const topic of DEADLINE_TOPICS) expect(REQUEST_TOPICS).toContain(topic);
    expect(DEADLINE_TOPICS.at(-1)).toBe('webhooks.apply-deadlines');
  });
});
