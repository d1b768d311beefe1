import { currentSubscriptionLags, trackSubscriptionLag } from './metrics';

describe('currentSubscriptionLags', () => {
  it('reads every tracked subscription now, by name, until it is untracked; an unreadable lag is left out', () => {
    let relayLag = 3;
    const untrackRelay = trackSubscriptionLag('test-relay', () => relayLag);
    const untrackBroken = trackSubscriptionLag('test-broken', () => Number.NaN);
    const untrackAudit = trackSubscriptionLag('test-audit', () => 0.5);

    relayLag = 120;
    expect(currentSubscriptionLags().filter((lag) => lag.subscription.startsWith('test-'))).toEqual([
      { subscription: 'test-audit', lagSeconds: 0.5 },
      { subscription: 'test-relay', lagSeconds: 120 },
    ]);

    untrackRelay();
    untrackBroken();
    untrackAudit();
    expect(currentSubscriptionLags().filter((lag) => lag.subscription.startsWith('test-'))).toEqual([]);
  });
});
