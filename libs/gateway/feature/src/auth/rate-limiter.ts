import type { Pool } from 'pg';
import { RATE_LIMIT_BUCKETS_MAX, RATE_LIMIT_BURST_FACTOR, SECOND_MS } from '@pay/kernel';

/**
 * Where the gateways of one deployment keep every key's bucket: `debit` takes one token for a request
 * a gateway admitted, atomically, and answers the tokens left (negative when the gateways together
 * admitted more than the bucket held: a debt the refill pays back before the next admission).
 */
export interface SharedBuckets {
  debit(keyId: string, ratePerSecond: number, burst: number): Promise<number>;
}

/**
 * The buckets in the gateway's PostgreSQL (`gw_rate_limits`, one row per API key: bounded by the keys),
 * refilled and debited in one statement on the database's clock, so that two gateways debiting the
 * same key at once both count. The debt is bounded by a burst.
 */
export class PostgresBuckets implements SharedBuckets {
  constructor(private readonly pool: Pool) {}

  async debit(keyId: string, ratePerSecond: number, burst: number): Promise<number> {
    const { rows } = await this.pool.query<{ tokens: number }>({
      name: 'gw-rate-limit-debit',
      text: `INSERT INTO gw_rate_limits AS b (key_id, tokens, refilled_at) VALUES ($1, $3::float8 - 1, now())
             ON CONFLICT (key_id) DO UPDATE SET
               tokens = GREATEST(-$3::float8, LEAST($3::float8, b.tokens + GREATEST(extract(epoch FROM now() - b.refilled_at), 0) * $2::float8) - 1),
               refilled_at = now()
             RETURNING tokens`,
      values: [keyId, ratePerSecond, burst],
    });
    return Number(rows[0]!.tokens);
  }
}

interface Bucket {
  tokens: number;
  at: number;
  /** Debits sent to the shared buckets and not answered yet. */
  pending: number;
}

/**
 * A token bucket per API key: `ratePerSecond` sustained, bursts up to twice that, across every gateway
 * when `shared` is given (several gateways behind one load balancer), in this process otherwise.
 *
 * The decision stays synchronous, on the request's path without a round trip: each gateway decides
 * from its copy of the key's bucket, refilled since, and debits every request it admits to the shared
 * bucket; the shared bucket's answer (what every gateway's debits left) replaces the copy, less this
 * gateway's debits still in flight. So the gateways together admit the rate and the burst, plus at
 * most, per gateway, the requests it admits while its debits are in flight (one PostgreSQL round trip,
 * on the asynchronous-commit pool). A debit that fails leaves the local decision standing (logged):
 * the limit degrades to per gateway, never to a refusal.
 *
 * Buckets idle long enough to be full again are dropped, so memory stays bounded by the keys active in
 * the last few seconds.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly nowMs: () => number = () => performance.now(),
    private readonly shared?: SharedBuckets,
    private readonly onSharedError: (error: unknown) => void = () => undefined,
  ) {
    this.burst = ratePerSecond * RATE_LIMIT_BURST_FACTOR;
  }

  /** 0 when the request may go on, otherwise the seconds to wait (for Retry-After). */
  take(key: string): number {
    if (this.ratePerSecond <= 0) return 0;
    const now = this.nowMs();
    const bucket = this.refilled(key, now);
    if (this.buckets.size > RATE_LIMIT_BUCKETS_MAX) this.evictFull(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      if (this.shared) this.debit(key, bucket);
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  /** Resolves once every debit sent has been answered (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private readonly inFlight = new Set<Promise<void>>();

  private refilled(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now, pending: 0 };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / SECOND_MS) * this.ratePerSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    return bucket;
  }

  private debit(key: string, bucket: Bucket): void {
    bucket.pending += 1;
    const debit = this.shared!.debit(key, this.ratePerSecond, this.burst).then(
      (left) => {
        bucket.pending -= 1;
        // What every gateway's debits left, less ours still on their way; refilled from now on.
        bucket.tokens = Math.min(this.burst, left - bucket.pending);
        bucket.at = this.nowMs();
        this.buckets.set(key, bucket);
      },
      (error: unknown) => {
        bucket.pending -= 1;
        this.onSharedError(error);
      },
    );
    this.inFlight.add(debit);
    void debit.finally(() => this.inFlight.delete(debit));
  }

  private evictFull(now: number): void {
    const refillMs = (this.burst / this.ratePerSecond) * SECOND_MS;
    for (const [key, bucket] of this.buckets) if (bucket.pending === 0 && now - bucket.at > refillMs) this.buckets.delete(key);
  }
}
