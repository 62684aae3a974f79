import type { Config } from '../../config/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Limits, RateRule } from '../ports/limits.ts';

/** A route's rate limit: takes one request of a key, or throws 429 with Retry-After. */
export interface HttpRateLimit {
  take(key: string): Promise<void>;
}

/**
 * The limiter `name` of the `limits` port (shared by every process on the same store) as a route
 * uses it: a refusal is the spec's 429 `rate_limited`, Retry-After in whole seconds, saying whose
 * budget ran out (`who`: "with this API key", "from this address" …).
 */
export function httpRateLimit(limits: Limits, name: string, rule: RateRule, who = 'with this API key'): HttpRateLimit {
  const limiter = limits.rateLimiter(name, rule);
  return {
    async take(key) {
      const decision = await limiter.take(key);
      if (decision.allowed) return;
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new ApiError(
        'rate_limit_error',
        'rate_limited',
        `Too many requests ${who}; retry after ${retryAfter} s.`,
        null,
        { retryAfterSeconds: retryAfter },
      );
    },
  };
}

/** Every route's limiter, made once per app from config; the names are the store's keys, shared by every process. */
export function routeLimits(limits: Limits, config: Config) {
  return {
    /** Generation creation per API key. */
    create: httpRateLimit(limits, 'api-create', config.rateLimits.create),
    /** Every other keyed request per API key or dashboard user. */
    read: httpRateLimit(limits, 'api-read', config.rateLimits.read),
    signInPerAccount: httpRateLimit(limits, 'sign-in-account', config.accounts.signInPerAccount, 'from this account'),
    signInPerAddress: httpRateLimit(limits, 'sign-in-address', config.accounts.signInPerAddress, 'from this address'),
    collectPerIp: httpRateLimit(limits, 'collect-address', config.conversions.collectPerIp, 'from this address'),
    collectPerVisitor: httpRateLimit(
      limits,
      'collect-visitor',
      config.conversions.collectPerVisitor,
      'from this visitor',
    ),
    widgetGenerationsPerIp: httpRateLimit(
      limits,
      'widget-generations-address',
      config.widgets.generationsPerIp,
      'from this address',
    ),
    widgetGenerationsPerVisitor: httpRateLimit(
      limits,
      'widget-generations-visitor',
      config.widgets.generationsPerVisitor,
      'from this visitor',
    ),
    widgetReadsPerIp: httpRateLimit(limits, 'widget-reads-address', config.widgets.readsPerIp, 'from this address'),
  };
}

export type RouteLimits = ReturnType<typeof routeLimits>;
