import type { Logger } from '@nestjs/common';
import { KafkaLogger } from '@nestjs/microservices';
import { logLevel, type logCreator } from 'kafkajs';

/**
 * What a group's coordinator answers a member's heartbeat while the group rebalances, or once the member
 * has left it (a heartbeat already sent when the consumer stops): the protocol's way of saying "rejoin",
 * on which kafkajs' runner (and the bus's own heartbeats) act. kafkajs' connection logs every error
 * answer at ERROR; these are debug here, so that a deploy or a Ctrl-C does not read as trouble.
 */
const REJOIN_ANSWERS = new Set([
  'The group is rebalancing, so a rejoin is needed', // REBALANCE_IN_PROGRESS
  'The coordinator is not aware of this member', // UNKNOWN_MEMBER_ID
  'Specified group generation id is not valid', // ILLEGAL_GENERATION
]);

/** Nest's kafkajs logger (the level mapped, through `logger`), with heartbeats answered "rejoin" at debug. */
export function kafkajsLogCreator(logger: Logger): logCreator {
  const nest = KafkaLogger(logger);
  return () => (entry) => {
    const { namespace, level, log } = entry;
    const rejoin = level === logLevel.ERROR && namespace === 'Connection' && log.message.startsWith('Response Heartbeat') && REJOIN_ANSWERS.has(String((log as { error?: unknown }).error));
    nest(rejoin ? { ...entry, level: logLevel.DEBUG, label: 'DEBUG' } : entry);
  };
}
