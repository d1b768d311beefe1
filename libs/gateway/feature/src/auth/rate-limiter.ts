import { RATE_LIMIT_BUCKETS_MAX, RATE_LIMIT_BURST_FACTOR, SECOND_MS } from '@pay/kernel';

/**
 * A token bucket per API key: `ratePerSecond` sustained, bursts up to twice that. In memory, per
 * gateway instance. Buckets idle long enough to be full again are dropped, so memory stays bounded
 * by the keys active in the last few seconds.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.burst = ratePerSecond * RATE_LIMIT_BURST_FACTOR;
  }

  /** 0 when the request may go on, otherwise the seconds to wait (for Retry-After). */
  take(key: string): number {
    if (this.ratePerSecond <= 0) return 0;
    const now = this.nowMs();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / SECOND_MS) * this.ratePerSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > RATE_LIMIT_BUCKETS_MAX) this.evictFull(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  private evictFull(now: number): void {
    const refillMs = (this.burst / this.ratePerSecond) * SECOND_MS;
    for (const [key, bucket] of this.buckets) if (now - bucket.at > refillMs) this.buckets.delete(key);
  }
}
