import { RateLimiterMemory } from 'rate-limiter-flexible';
import { rateWindow, refusedTake, type ConcurrencyCap, type Limits, type RateLimiter, type RateRule } from '../../kit/plugin.ts';

/** rate-limiter-flexible's in-memory windows, counted as the shared stores count them (see rateWindow). */
export function memoryRateLimiter(name: string, rule: RateRule): RateLimiter {
  const limiter = new RateLimiterMemory({ keyPrefix: name, ...rateWindow(rule) });
  return {
    async take(key) {
      try {
        await limiter.consume(key);
        return { allowed: true };
      } catch (refusal) {
        return refusedTake(refusal);
      }
    },
  };
}

/** Slots as expiry times per key; expired ones are dropped whenever the key is looked at. */
function memoryConcurrency(limit: number, leaseMs: number, now: () => number): ConcurrencyCap {
  const held = new Map<string, Map<symbol, number>>();
  const live = (key: string) => {
    const slots = held.get(key) ?? new Map<symbol, number>();
    for (const [slot, expiresAt] of slots) if (expiresAt <= now()) slots.delete(slot);
    if (slots.size) held.set(key, slots);
    else held.delete(key);
    return slots;
  };
  return {
    async tryAcquire(key) {
      const slots = live(key);
      if (slots.size >= limit) return null;
      const id = Symbol(key);
      held.set(key, slots.set(id, now() + leaseMs));
      return {
        async renew() {
          const current = live(key);
          if (!current.has(id)) return false;
          current.set(id, now() + leaseMs);
          return true;
        },
        async release() {
          live(key).delete(id);
          live(key);
        },
      };
    },
  };
}

/** One budget per name in this process, as the shared stores keep one per name in theirs. */
export function createMemoryLimits(now: () => number = Date.now): Limits {
  const limiters = new Map<string, RateLimiter>();
  const caps = new Map<string, ConcurrencyCap>();
  return {
    rateLimiter(name, rule) {
      const id = `${name}:${rule.perSecond}:${rule.burst}`;
      if (!limiters.has(id)) limiters.set(id, memoryRateLimiter(name, rule));
      return limiters.get(id)!;
    },
    concurrency(name, limit, leaseMs) {
      const id = `${name}:${limit}:${leaseMs}`;
      if (!caps.has(id)) caps.set(id, memoryConcurrency(limit, leaseMs, now));
      return caps.get(id)!;
    },
  };
}
