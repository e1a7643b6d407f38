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
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  take(bucket: string, rule: RateLimitRule): RateDecision {
    const now = this.clock.now();
    const windowMs = rule.windowSeconds * 1000;
    const recent = (this.hits.get(bucket) ?? []).filter((t) => t > now - windowMs);
    if (recent.length >= rule.requests) {
      this.hits.set(bucket, recent);
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
      return { allowed: false, retryAfterSeconds, remaining: 0 };
    }
    recent.push(now);
    this.hits.set(bucket, recent);
    return { allowed: true, retryAfterSeconds: 0, remaining: rule.requests - recent.length };
  }

  reset(): void {
    this.hits.clear();
  }
}
