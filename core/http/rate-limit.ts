import { ApiError } from '../domain/errors.ts';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets keyed by caller (an API key id): `burst` requests at once, refilled at
 * `perSecond`. Kept in memory per process; an idle bucket is full again and is forgotten.
 */
export function createRateLimiter({ perSecond, burst }: { perSecond: number; burst: number }, now: () => number = Date.now) {
  const buckets = new Map<string, Bucket>();
  const refill = (bucket: Bucket, at: number) => Math.min(burst, bucket.tokens + ((at - bucket.updatedAt) / 1000) * perSecond);

  const sweep = setInterval(() => {
    const at = now();
    for (const [key, bucket] of buckets) if (refill(bucket, at) >= burst) buckets.delete(key);
  }, 60_000);
  sweep.unref();

  return {
    /** Takes one token or throws 429 with Retry-After (whole seconds until a token is back). */
    take(key: string) {
      const at = now();
      const bucket = buckets.get(key) ?? { tokens: burst, updatedAt: at };
      bucket.tokens = refill(bucket, at);
      bucket.updatedAt = at;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new ApiError('rate_limit_error', 'rate_limited', `Too many requests with this API key; retry after ${retryAfter} s.`, null, 429, {
        'retry-after': String(retryAfter),
      });
    },
    close: () => clearInterval(sweep),
  };
}
