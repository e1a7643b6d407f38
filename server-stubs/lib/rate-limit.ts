import type { Clock } from './clock.js';

/** The contract's `x-rate-limit` on an operation. */
export interface RateLimitRule {
  requests: number;
  windowSeconds: number;
  /**
   * Operations naming the same bucket share one window per key (a service-wide "100 requests per
   * minute per key"); without it each operation has its own.
   */
  bucket?: string;
}

export interface RateDecision {
  allowed: boolean;
  /** whole seconds until the next request in this bucket would be allowed */
  retryAfterSeconds: number;
  remaining: number;
}

/**
 * Sliding-window limiter: a bucket (operation + key) allows `requests` in any `windowSeconds`.
 * Sliding rather than fixed windows so a burst at a window's edge cannot double the rate.
 */
export class RateLimiter {
  /** per bucket, the times of the requests it let in, in the order they came */
  private readonly hits = new Map<string, number[]>();
  /** buckets whose times are not in ascending order (the system clock stepped back) */
  private readonly unordered = new Set<string>();

  constructor(private readonly clock: Clock) {}

  take(bucket: string, rule: RateLimitRule): RateDecision {
    const now = this.clock.now();
    const windowMs = rule.windowSeconds * 1000;
    const recent = this.within(bucket, now - windowMs);
    if (recent.length >= rule.requests) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
      return { allowed: false, retryAfterSeconds, remaining: 0 };
    }
    if (recent.length > 0 && now < recent[recent.length - 1]!) this.unordered.add(bucket);
    recent.push(now);
    return { allowed: true, retryAfterSeconds: 0, remaining: rule.requests - recent.length };
  }

  reset(): void {
    this.hits.clear();
    this.unordered.clear();
  }

  /**
   * The bucket's times after `since`, in the order they came, kept in place: a window being filled
   * is asked once per request, and copying its times each time made a window's cost grow with the
   * square of its size. Times that only grow expire from the front.
   */
  private within(bucket: string, since: number): number[] {
    let times = this.hits.get(bucket);
    if (!times) {
      times = [];
      this.hits.set(bucket, times);
    } else if (this.unordered.has(bucket)) {
      times = times.filter((t) => t > since);
      this.hits.set(bucket, times);
    } else {
      let expired = 0;
      while (expired < times.length && !(times[expired]! > since)) expired++;
      if (expired > 0) times.splice(0, expired);
    }
    return times;
  }
}
