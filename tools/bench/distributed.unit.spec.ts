import { addBusRequestTotals, describeBusRequests, kafkaMessages, roundTrips, type RequestTotals } from './distributed';

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
});
