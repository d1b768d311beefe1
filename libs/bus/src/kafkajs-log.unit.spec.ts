import { Logger } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { kafkajsLogCreator } from './kafkajs-log';

/** kafkajs' own logger, as its connection uses it, writing through the bus's creator to a Nest logger that keeps the lines. */
function kafkajsLogger(): { connection: ReturnType<ReturnType<Kafka['logger']>['namespace']>; lines: [string, string][] } {
  const lines: [string, string][] = [];
  const logger = new Logger('ServerKafka');
  for (const method of ['error', 'warn', 'log', 'debug'] as const) {
    Object.defineProperty(logger, method, { value: (message: string) => lines.push([method, message]) });
  }
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.WARN, logCreator: kafkajsLogCreator(logger) });
  return { connection: kafka.logger().namespace('Connection'), lines };
}

describe('kafkajs lines through the bus', () => {
  it.each([
    ['The group is rebalancing, so a rejoin is needed'],
    ['The coordinator is not aware of this member'],
    ['Specified group generation id is not valid'],
  ])('a heartbeat answered "%s" (rejoin) is a debug line, not an error', (error) => {
    const { connection, lines } = kafkajsLogger();
    connection.error('Response Heartbeat(key: 12, version: 3)', { error, correlationId: 30, size: 10 });
    expect(lines).toEqual([['debug', expect.stringMatching(/^DEBUG \[Connection\] Response Heartbeat\(key: 12, version: 3\) \{/)]]);
    expect(lines[0]![1]).toContain(`"error":"${error}"`);
  });

  it('any other error answer stays an error, as Nest logs it', () => {
    const { connection, lines } = kafkajsLogger();
    connection.error('Response Heartbeat(key: 12, version: 3)', { error: 'Not authorized to access group' });
    connection.error('Response Fetch(key: 1, version: 11)', { error: 'The coordinator is not aware of this member' });
    connection.warn('Connection timeout', {});
    expect(lines.map(([method, line]) => [method, line.split(' {')[0]])).toEqual([
      ['error', 'ERROR [Connection] Response Heartbeat(key: 12, version: 3)'],
      ['error', 'ERROR [Connection] Response Fetch(key: 1, version: 11)'],
      ['warn', 'WARN [Connection] Connection timeout'],
    ]);
  });
});
