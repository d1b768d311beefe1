import type { Logger } from '@nestjs/common';
import { KAFKA_REJOIN_AFTER_CRASH_MS_MAX, KAFKA_REJOIN_AFTER_CRASH_MS_MIN } from '@pay/kernel';
import { reason } from './error-reason';

/** The part of a kafkajs consumer GroupMembership uses (Nest types its consumers with its own copy of kafkajs' types). */
export interface KafkaConsumerHandle {
  events: { GROUP_JOIN: string; CRASH: string; STOP: string; DISCONNECT: string };
  on(event: string, listener: (event: unknown) => void): unknown;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

type CrashEvent = { payload: { error: unknown; groupId: string; restart: boolean } };

/**
 * Whether a kafkajs consumer is a member of its group now, from its events: joined (also again after a
 * rebalance or a restart) until it crashes, stops or disconnects. A rebalance alone keeps it a member:
 * it is still connected and resumes by itself. Events of a consumer replaced since are ignored.
 */
export class GroupMembership {
  joined = false;
  /** Set by close(): a crash then is not followed by a rejoin. */
  private closing = false;
  private current: unknown;
  /** The rejoin waiting for its pause, and the one connecting: close() cancels the first and waits for the second. */
  private rejoinTimer: NodeJS.Timeout | undefined;
  private rejoining: Promise<void> | undefined;

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  /**
   * Watches `consumer`; `rejoin` subscribes and runs it again (Nest's own binding), for a consumer that
   * crashed on an error kafkajs does not retry. kafkajs then leaves it disconnected for good: the
   * process would stay up, never ready, serving nothing. One such error is part of a group's ordinary
   * life on librdkafka's mock cluster: a member whose SyncGroup arrives after the leader's is answered
   * INVALID_REQUEST (the group is already up), which an instance started on a busy machine meets when
   * it joins a group that has members. It rejoins as a new member after a pause (doubled per failed
   * rejoin, KAFKA_REJOIN_AFTER_CRASH_MS_*), until close().
   */
  watch(consumer: KafkaConsumerHandle, rejoin: () => Promise<void>): void {
    this.current = consumer;
    this.joined = false;
    this.closing = false;
    const set = (joined: boolean) => () => {
      if (this.current === consumer) this.joined = joined;
    };
    consumer.on(consumer.events.GROUP_JOIN, set(true));
    consumer.on(consumer.events.STOP, set(false));
    consumer.on(consumer.events.DISCONNECT, set(false));
    consumer.on(consumer.events.CRASH, (event) => {
      set(false)();
      const { error, groupId, restart } = (event as CrashEvent).payload;
      if (restart || this.closing || this.current !== consumer) return;
      this.logger.warn(`consumer of ${groupId} crashed (${reason(error)}), which kafkajs does not retry: rejoining as a new member`);
      this.rejoin(consumer, rejoin, KAFKA_REJOIN_AFTER_CRASH_MS_MIN);
    });
  }

  /**
   * No rejoin from now on: one waiting for its pause is cancelled, and one already connecting is waited
   * for (it then leaves instead of running), so that nothing of the consumer runs after its owner closed.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.rejoinTimer);
    this.rejoinTimer = undefined;
    await this.rejoining;
  }

  private rejoin(consumer: KafkaConsumerHandle, rejoin: () => Promise<void>, delayMs: number): void {
    this.rejoinTimer = setTimeout(() => {
      this.rejoinTimer = undefined;
      if (this.closing || this.current !== consumer) return;
      this.rejoining = consumer
        .connect()
        .then(() => (this.closing || this.current !== consumer ? consumer.disconnect() : rejoin()))
        .catch((error: unknown) => {
          if (this.closing) return;
          this.logger.warn(`rejoining failed (${reason(error)}); trying again in ${delayMs} ms`);
          this.rejoin(consumer, rejoin, Math.min(2 * delayMs, KAFKA_REJOIN_AFTER_CRASH_MS_MAX));
        })
        .finally(() => (this.rejoining = undefined));
    }, delayMs);
    this.rejoinTimer.unref();
  }
}
