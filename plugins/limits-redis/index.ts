import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createRedisLimits } from './redis-limits.ts';

export { createRedisLimits, type RedisLimitsOptions } from './redis-limits.ts';

export default definePlugin({
  name: 'limits-redis',
  provides: ['limits'],
  configSchema: v.object({
    /** `redis://…` or `rediss://…`; env REDIS_URL. */
    url: v.optional(v.pipe(v.string(), v.regex(/^rediss?:\/\//, 'must start with redis:// or rediss://'))),
    keyPrefix: v.optional(v.string(), 'visualizer:limits:'),
    commandTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1_000),
  }),
  async register({ options, logger }) {
    if (!options.url)
      throw new Error('the redis limits need the Redis URL: set REDIS_URL (or pluginOptions.limits-redis.url).');
    const limits = await createRedisLimits({ ...options, url: options.url }, logger);
    return { limits, dispose: () => limits.close() };
  },
});
