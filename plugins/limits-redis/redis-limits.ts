import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import {
  rateLimiterPerRule,
  rateWindow,
  reservingRateLimiter,
  type ConcurrencyCap,
  type Limits,
  type Logger,
  type RateLimiter,
  type RateRule,
} from '../../kit/plugin.ts';

/**
 * A cap's slots are one sorted set per key: members are holders (`<instance>:<uuid>`), scores the
 * Redis time (ms) at which each lease ends. Each script first drops expired members, so a dead
 * holder's slot frees itself; the key expires with its latest lease (every lease of a cap has the
 * same length). Beside them, a set per instance (KEYS[2]) indexes the slot keys it took slots in,
 * kept as long as its longest lease, so that `releaseInstance` visits those keys alone rather than
 * scanning every slot key of every deployment sharing the Redis.
 */
const nowMs = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const keepIndex = (leaseMs: string) => `redis.call('SADD', KEYS[2], KEYS[1])
if redis.call('PTTL', KEYS[2]) < tonumber(${leaseMs}) then redis.call('PEXPIRE', KEYS[2], ${leaseMs}) end`;
const acquireScript = `${nowMs}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
${keepIndex('ARGV[2]')}
return 1`;
const renewScript = `${nowMs}
local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not score or tonumber(score) <= now then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
${keepIndex('ARGV[1]')}
return 1`;

type SlotClient = Redis & {
  acquireSlot(key: string, index: string, limit: number, leaseMs: number, holder: string): Promise<number>;
  renewSlot(key: string, index: string, leaseMs: number, holder: string): Promise<number>;
};

/** The URL without its password, for messages. */
const redactedUrl = (url: string) => {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.href;
};

export interface RedisLimitsOptions {
  url: string;
  /** Prefix of every key this adapter writes, so one Redis can serve several deployments. */
  keyPrefix: string;
  /** A command not answered within this fails (and a take falls back to memory). */
  commandTimeoutMs: number;
}

/**
 * Limits in Redis, shared by every process using it: rate-limiter-flexible's RateLimiterRedis for
 * rates, a Lua script per slot operation for caps. Commands are not queued while Redis is away
 * (`enableOfflineQueue: false`): a take falls back at once to this process's memory, and an
 * acquire rejects, rather than a request hanging on a lost connection.
 */
export async function createRedisLimits(
  options: RedisLimitsOptions,
  logger: Logger,
): Promise<Limits & { close(): Promise<void> }> {
  const client = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs,
    lazyConnect: true,
  }) as SlotClient;
  // Until the first connection, a failure is startup's to report.
  let warned = true;
  client.on('error', (error: Error) => {
    // ioredis reconnects by itself; one line per outage is enough.
    if (!warned)
      logger.warn('limits: Redis is unreachable; rate limits hold per process until it is back', {
        error: error.message,
      });
    warned = true;
  });
  client.on('ready', () => (warned = false));
  client.defineCommand('acquireSlot', { numberOfKeys: 2, lua: acquireScript });
  client.defineCommand('renewSlot', { numberOfKeys: 2, lua: renewScript });
  // A wrong URL fails startup, as the database's does; the client must not go on reconnecting then.
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`cannot reach Redis at ${redactedUrl(options.url)}: ${(error as Error).message}`);
  }

  const rateLimiter = (name: string, rule: RateRule): RateLimiter => {
    const window = rateWindow(rule);
    const limiter = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${options.keyPrefix}rate:${name}`,
      rejectIfRedisNotReady: true,
      // A key seen spent is refused from this process's memory until its window ends.
      inMemoryBlockOnConsumed: window.points,
      // While Redis is away, this process counts alone.
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, ...window }),
      ...window,
    });
    return reservingRateLimiter(limiter, rule);
  };

  const instance = randomUUID();
  const indexKey = (of: string) => `${options.keyPrefix}instance:${of}`;
  const concurrency = (name: string, limit: number, leaseMs: number): ConcurrencyCap => ({
    async tryAcquire(key) {
      const setKey = `${options.keyPrefix}slots:${name}:${key}`;
      const holder = `${instance}:${randomUUID()}`;
      if (!(await client.acquireSlot(setKey, indexKey(instance), limit, leaseMs, holder))) return null;
      return {
        renew: async () => (await client.renewSlot(setKey, indexKey(instance), leaseMs, holder)) === 1,
        release: async () => {
          await client.zrem(setKey, holder);
        },
      };
    },
  });

  /** The instance's holders in each slot key it indexed; the instance is gone, so none is added meanwhile. */
  const releaseInstance = async (of: string) => {
    const index = indexKey(of);
    const setKeys = await client.smembers(index);
    let freed = 0;
    for (const setKey of setKeys) {
      const holders = (await client.zrange(setKey, 0, -1)).filter((holder) => holder.startsWith(`${of}:`));
      if (holders.length) freed += await client.zrem(setKey, ...holders);
    }
    await client.del(index);
    return freed;
  };

  return {
    rateLimiter: rateLimiterPerRule(rateLimiter),
    concurrency,
    instance,
    releaseInstance,
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
