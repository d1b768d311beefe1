import { addBusRequestTotals, describeBusRequests, kafkaMessages, roundTrips, subscriptionLags, sumOf, type RequestTotals } from './distributed';
import { mergeLoads, type LoadResult } from './load';

const metrics = (authorize: [number, number], transfer: [number, number]): string =>
  [
    '# HELP bus_request_duration_seconds Time from sending a bus request to its reply (or error), seen by the caller, by request topic.',
    '# TYPE bus_request_duration_seconds histogram',
    'bus_request_duration_seconds_bucket{le="0.005",topic="payments.authorize"} 0',
    `bus_request_duration_seconds_sum{topic="payments.authorize"} ${authorize[0]}`,
    `bus_request_duration_seconds_count{topic="payments.authorize"} ${authorize[1]}`,
    `bus_request_duration_seconds_sum{topic="ledger.transfer"} ${transfer[0]}`,
    `bus_request_duration_seconds_count{topic="ledger.transfer"} ${transfer[1]}`,
    'bus_messages_handled_total{topic="payments.authorize",outcome="ok"} 7',
  ].join('\n');

describe('the distributed phase reading of bus requests', () => {
  it('sums every instance of an app by topic, and reports the requests made between two readings, slowest first', () => {
    const before: RequestTotals = new Map();
    addBusRequestTotals(before, 'gateway', metrics([1, 10], [0, 0]));
    const after: RequestTotals = new Map();
    addBusRequestTotals(after, 'gateway', metrics([11, 60], [0, 0]));
    addBusRequestTotals(after, 'payments', metrics([0, 0], [2, 40]));
    addBusRequestTotals(after, 'payments', metrics([0, 0], [1, 20]));

    expect(after.get('payments → ledger.transfer')).toEqual({ seconds: 3, count: 60 });
    // gateway: 10 s over 50 requests; payments: 3 s over 60 (both instances).
    expect(describeBusRequests(before, after)).toBe('gateway → payments.authorize 200.0 ms (50), payments → ledger.transfer 50.0 ms (60)');
  });

  it('says none when no request was made', () => {
    const totals: RequestTotals = new Map();
    addBusRequestTotals(totals, 'gateway', metrics([1, 10], [0, 0]));
    expect(describeBusRequests(totals, totals)).toBe('none');
  });

  it('counts the round trips and the Kafka messages written between two readings, per authorization', () => {
    const before: RequestTotals = new Map();
    const after: RequestTotals = new Map();
    addBusRequestTotals(before, 'gateway', metrics([1, 10], [0, 0]));
    addBusRequestTotals(after, 'gateway', metrics([3, 30], [0, 0]));
    addBusRequestTotals(after, 'payments', metrics([0, 0], [2, 20]));
    expect(roundTrips(before, after)).toBe(40);
    const offsets = (requests: number, replies: number, commits: number) =>
      new Map([
        ['payments.requests', requests],
        ['payments.replies', replies],
        ['__consumer_offsets', commits],
      ]);
    expect(kafkaMessages(offsets(5, 5, 100), offsets(25, 45, 110), 20)).toEqual({ requests: 1, replies: 2, offsetCommits: 0.5 });
  });

  it('sums counters through Maps, arrays and objects, so that the sums of readings before and after batches differ by the batches\' deltas', () => {
    const reading = (calls: number, offsets: [string, number][], handled: number) => ({
      requests: new Map([['gateway → payments.authorize-batch', { seconds: calls / 10, count: calls }]]),
      offsets: new Map(offsets),
      pg: [{ commits: calls, statements: new Map([['42', { query: 'SELECT 1', calls }]]) }],
      handled: { payments: { 'payments-0': handled } },
    });
    // Two batches: 10 → 30 calls, then 35 → 60 (5 made between them, by the GETs that check the outcome).
    const before = sumOf(reading(10, [['payments.requests', 1]], 4), reading(35, [['payments.requests', 5], ['ledger.requests', 2]], 9));
    const after = sumOf(reading(30, [['payments.requests', 4]], 8), reading(60, [['payments.requests', 7], ['ledger.requests', 3]], 15));
    expect(roundTrips(before.requests, after.requests)).toBe(20 + 25);
    expect(after.requests.get('gateway → payments.authorize-batch')!.seconds - before.requests.get('gateway → payments.authorize-batch')!.seconds).toBeCloseTo(4.5);
    expect(kafkaMessages(before.offsets, after.offsets, 1).requests).toBe(3 + 2 + 1);
    expect(after.pg[0]!.commits - before.pg[0]!.commits).toBe(45);
    expect(after.pg[0]!.statements.get('42')).toEqual({ query: 'SELECT 1', calls: 90 });
    expect(after.handled.payments['payments-0']! - before.handled.payments['payments-0']!).toBe(4 + 6);
  });

  it('merges batches run one after another into one run: durations and counts added, percentiles over every latency', () => {
    const run = (durationS: number, latenciesMs: number[], statusCounts: Record<number, number>): LoadResult => ({
      durationS,
      perSecond: latenciesMs.length / durationS,
      completed: latenciesMs.length,
      ok: statusCounts[200] ?? 0,
      non2xx: latenciesMs.length - (statusCounts[200] ?? 0),
      errors: 0,
      timeouts: 0,
      statusCounts,
      p50Ms: Number.NaN,
      p99Ms: Number.NaN,
      latenciesMs,
    });
    const merged = mergeLoads([run(1, [5, 1, 3], { 200: 3 }), run(3, [100, 2, 4, 6, 8], { 200: 4, 503: 1 })]);
    expect(merged).toMatchObject({ durationS: 4, perSecond: 2, completed: 8, ok: 7, non2xx: 1, statusCounts: { 200: 7, 503: 1 }, p50Ms: 4, p99Ms: 100 });
    expect(merged.latenciesMs).toEqual([1, 2, 3, 4, 5, 6, 8, 100]);
  });

  it("reads every instance's subscription lags, to wait for both topologies to catch up before a batch", () => {
    const lag = (subscription: string, seconds: number) => `event_store_subscription_lag_seconds{subscription="${subscription}"} ${seconds}`;
    const scrape = {
      payments: { 'payments-0': ['# TYPE event_store_subscription_lag_seconds gauge', lag('payment-views', 0.25), lag('integration', 3.5)].join('\n'), 'payments-1': lag('payment-views', 0.1) },
      gateway: { gateway: 'http_requests_total{route="/v1/payments"} 12' },
    };
    expect(subscriptionLags(scrape)).toEqual([0.25, 3.5, 0.1]);
  });
});
