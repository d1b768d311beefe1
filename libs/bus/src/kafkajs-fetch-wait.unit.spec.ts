import { KAFKAJS_VERSION_FETCH_WAIT, endKafkajsFetchWaitOnRebalance } from './kafkajs-fetch-wait';

// Its behaviour is shown on a broker (kafka-bus.distributed.spec.ts, "members whose fetches wait").
describe('kafkajs Runner, its fetch wait ended on a rebalance or a stop', () => {
  it('is the kafkajs release the patch was written for (another one: check whether it still heartbeats only between fetches)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('kafkajs/package.json') as { version: string }).version).toBe(KAFKAJS_VERSION_FETCH_WAIT);
  });

  it("replaces the Runner's fetch and stop once, whatever the number of buses", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Runner = require('kafkajs/src/consumer/runner') as { prototype: { fetch: unknown; stop: unknown } };
    endKafkajsFetchWaitOnRebalance();
    const { fetch, stop } = Runner.prototype;
    expect((fetch as { name: string }).name).toBe('fetchUntilRebalance');
    expect((stop as { name: string }).name).toBe('stopWithoutWaitingForFetches');
    endKafkajsFetchWaitOnRebalance();
    expect(Runner.prototype.fetch).toBe(fetch);
    expect(Runner.prototype.stop).toBe(stop);
  });
});
