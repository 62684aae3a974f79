import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  flexibleRateLimiter,
  rateLimiterPerRule,
  rateWindow,
  type ConcurrencyCap,
  type Limits,
  type RateLimiter,
  type RateRule,
} from '../../kit/plugin.ts';

/** rate-limiter-flexible's in-memory windows, counted as the shared stores count them (see rateWindow). */
export function memoryRateLimiter(name: string, rule: RateRule): RateLimiter {
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: name, ...rateWindow(rule) }));
}

/** Slots as expiry times per key; expired ones are dropped whenever the key is looked at. */
function memoryConcurrency(
  limit: number,
  leaseMs: number,
  now: () => number,
): ConcurrencyCap & { releaseAll(): number } {
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
    releaseAll() {
      let freed = 0;
      for (const key of [...held.keys()]) freed += live(key).size;
      held.clear();
      return freed;
    },
  };
}

/**
 * One budget per name in this process, as the shared stores keep one per name in theirs. Every
 * slot is held under this instance: another process's slots are never here (they died with it).
 */
export function createMemoryLimits(now: () => number = Date.now): Limits {
  const caps = new Map<string, ReturnType<typeof memoryConcurrency>>();
  const instance = randomUUID();
  return {
    rateLimiter: rateLimiterPerRule(memoryRateLimiter),
    concurrency(name, limit, leaseMs) {
      const id = `${name}:${limit}:${leaseMs}`;
      if (!caps.has(id)) caps.set(id, memoryConcurrency(limit, leaseMs, now));
      return caps.get(id)!;
    },
    instance,
    async releaseInstance(of) {
      if (of !== instance) return 0;
      let freed = 0;
      for (const cap of caps.values()) freed += cap.releaseAll();
      return freed;
    },
  };
}
