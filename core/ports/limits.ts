/**
 * Limits port: rate limits and concurrency caps, per key, under a name (`api-read`,
 * `webhook-endpoint` …). Adapters: `memory` (one process), `redis` and `postgres` (shared).
 * The guarantees an adapter gives are on `Limits` (what an editor shows on hover).
 */
import type { PoolStats } from './persistence/index.ts';

/** A rate: `burst` requests at once, `perSecond` on average (see rateWindow). */
export interface RateRule {
  perSecond: number;
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  /** Counts one request of `key`, or says it is over its budget and when to come back. */
  take(key: string): Promise<RateDecision>;
}

/** A held concurrency slot. */
export interface Slot {
  /** Extends the lease by `leaseMs` from now; false when it had already expired (and may be someone else's). */
  renew(): Promise<boolean>;
  /** Gives the slot back; harmless when called twice or after expiry. */
  release(): Promise<void>;
}

export interface ConcurrencyCap {
  /** A slot of `key`, or null when `limit` are held; rejects when the store cannot be reached. */
  tryAcquire(key: string): Promise<Slot | null>;
}

/**
 * Rate limits and concurrency caps, per key, under a name.
 *
 * An adapter must guarantee:
 * - Shared state: every limiter or cap made with the same name and rule, in any process using
 *   the same store, counts against one budget (`memory`: within one process only).
 * - Rate: for one key at most `burst` takes are allowed at once and, over a long run, about
 *   `perSecond` a second; a refused take says when one will be allowed again (`retryAfterMs`).
 *   A shared adapter may hand a key's points out of reservations (reservingRateLimiter): a process
 *   holds at most a tenth of a window's points of a key (at least one), counted in the store
 *   before it hands them out, so the budget across processes is never exceeded; a refusal means
 *   every point of the window was handed out or is held by a process for its own next takes, so
 *   with P processes a key gets at most P such shares fewer than its budget in a window, and only
 *   when what they held went unspent. A key found spent may be refused from memory until its
 *   window ends.
 * - Concurrency: at most `limit` slots per key are held at once; a slot is held until released
 *   or until `leaseMs` passes without a renewal (a process that died holding one loses it), or
 *   until `releaseInstance` frees it with every other slot its adapter instance holds.
 * - Keys are independent, and so are names.
 * A store that cannot be reached makes `take` fall back to this process's own memory (limits hold
 * per process until it is back, beside the points it already held) and `tryAcquire` reject: work
 * waiting on a cap waits out the outage.
 */
export interface Limits {
  rateLimiter(name: string, rule: RateRule): RateLimiter;
  concurrency(name: string, limit: number, leaseMs: number): ConcurrencyCap;
  /**
   * The id every slot this adapter instance takes is held under, unique to it (one per process).
   * A process records it in the process registry, so that others can free its slots when it dies.
   */
  readonly instance: string;
  /**
   * Frees every slot of every cap held under `instance` (another process's, found dead), without
   * waiting for their leases to end, and resolves with how many; an unknown instance frees none.
   * Their holders' renewals then fail, and their releases free nothing of anyone else's.
   */
  releaseInstance(instance: string): Promise<number>;
  /** The connection pool an adapter keeps to the deployment's database, if any (startup counts its connections). */
  poolStats?(): PoolStats[];
}

/**
 * The fixed window every built-in adapter counts a rule in (rate-limiter-flexible's model): `burst`
 * requests (or `perSecond` × the window, if more) per window of `burst / perSecond` seconds, rounded
 * to whole seconds as Redis expiry counts them. The long-run rate is `perSecond`; right across a
 * window's end a key may get up to twice `burst` in a short while.
 */
export function rateWindow({ perSecond, burst }: RateRule): { points: number; duration: number } {
  const duration = Math.max(1, Math.round(burst / perSecond));
  return { points: Math.max(burst, Math.floor(perSecond * duration)), duration };
}

/**
 * A RateLimiter over a rate-limiter-flexible limiter, as every built-in adapter counts: a refusal,
 * with which it rejects `consume` (an object with `msBeforeNext`), becomes a decision; anything else
 * (the store's error) is thrown again. `storeKey` turns a caller's key into the store's.
 */
export function flexibleRateLimiter(
  limiter: { consume(key: string): Promise<unknown> },
  storeKey: (key: string) => string = (key) => key,
): RateLimiter {
  return {
    async take(key) {
      try {
        await limiter.consume(storeKey(key));
        return { allowed: true };
      } catch (refusal) {
        const msBeforeNext = (refusal as { msBeforeNext?: unknown } | null)?.msBeforeNext;
        if (refusal instanceof Error || typeof msBeforeNext !== 'number') throw refusal;
        return { allowed: false, retryAfterMs: Math.max(1, msBeforeNext) };
      }
    },
  };
}

/** `Limits.rateLimiter` making one limiter per name and rule on first use, so every take of a budget counts in the same one. */
export function rateLimiterPerRule(make: (name: string, rule: RateRule) => RateLimiter): Limits['rateLimiter'] {
  const limiters = new Map<string, RateLimiter>();
  return (name, rule) => {
    const id = `${name}:${rule.perSecond}:${rule.burst}`;
    let limiter = limiters.get(id);
    if (!limiter) limiters.set(id, (limiter = make(name, rule)));
    return limiter;
  };
}
