import { EventEmitter } from 'node:events';
import { KAFKA_REJOIN_AFTER_CRASH_MS_MIN } from '@pay/kernel';
import { GroupMembership, type KafkaConsumerHandle } from './group-membership';

/** A consumer as GroupMembership sees it: its events, and a connect that resolves when the test says so. */
class FakeConsumer extends EventEmitter implements KafkaConsumerHandle {
  readonly events = { GROUP_JOIN: 'join', CRASH: 'crash', STOP: 'stop', DISCONNECT: 'disconnect' };
  connects = 0;
  disconnects = 0;
  private connected: (() => void) | undefined;

  connect(): Promise<void> {
    this.connects++;
    return new Promise((resolve) => (this.connected = resolve));
  }

  finishConnect(): void {
    this.connected?.();
  }

  async disconnect(): Promise<void> {
    this.disconnects++;
  }

  crash(): void {
    this.emit('crash', { payload: { error: new Error('INVALID_REQUEST'), groupId: 'ledger-server', restart: false } });
  }
}

/** A membership watching a new consumer, with a rejoin that only counts its calls. */
function watched() {
  const membership = new GroupMembership({ warn: () => undefined });
  const consumer = new FakeConsumer();
  const rejoin = jest.fn(async () => undefined);
  membership.watch(consumer, rejoin);
  return { membership, consumer, rejoin };
}

describe('a consumer group membership', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('rejoins a crashed consumer after the pause, and reports it a member once it joined', async () => {
    const { membership, consumer, rejoin } = watched();
    consumer.emit('join');
    expect(membership.joined).toBe(true);
    consumer.crash();
    expect(membership.joined).toBe(false);
    await jest.advanceTimersByTimeAsync(KAFKA_REJOIN_AFTER_CRASH_MS_MIN);
    consumer.finishConnect();
    await jest.advanceTimersByTimeAsync(0);
    expect(rejoin).toHaveBeenCalledTimes(1);
    consumer.emit('join');
    expect(membership.joined).toBe(true);
  });

  it('closed during the pause: the consumer is never connected again', async () => {
    const { membership, consumer, rejoin } = watched();
    consumer.crash();
    await membership.close();
    await jest.advanceTimersByTimeAsync(10 * KAFKA_REJOIN_AFTER_CRASH_MS_MIN);
    expect(consumer.connects).toBe(0);
    expect(rejoin).not.toHaveBeenCalled();
  });

  it('closed while the rejoin connects: close waits for the connect, and the consumer leaves instead of running', async () => {
    const { membership, consumer, rejoin } = watched();
    consumer.crash();
    await jest.advanceTimersByTimeAsync(KAFKA_REJOIN_AFTER_CRASH_MS_MIN);
    expect(consumer.connects).toBe(1);
    let closed = false;
    const closing = membership.close().then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    consumer.finishConnect();
    await closing;
    expect(rejoin).not.toHaveBeenCalled();
    expect(consumer.disconnects).toBe(1);
  });
});
