import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../core/logger.ts';
import { limitsContract } from '../kit/testing/index.ts';
import { createMemoryLimits } from '../plugins/limits-memory/index.ts';
import { createPostgresLimits } from '../plugins/limits-postgres/index.ts';
import { createRedisLimits } from '../plugins/limits-redis/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';

describe('limits adapters', () => {
  let redis: RedisTestServer | undefined;
  let postgres: PostgresTestServer | undefined;
  let databaseUrl: Promise<string> | undefined;
  after(async () => {
    await redis?.stop();
    await postgres?.stop();
  });

  limitsContract({ name: 'memory', create: () => createMemoryLimits(), shared: false });

  limitsContract({
    name: 'redis',
    create: async () => {
      redis ??= await startRedisServer();
      return createRedisLimits({ url: redis.url, keyPrefix: 'test:', commandTimeoutMs: 2_000 }, silentLogger);
    },
    dispose: (limits) => limits.close(),
    shared: true,
  });

  limitsContract({
    name: 'postgres',
    create: async () => {
      // One database for both instances, migrated as `visualizer migrate` would (migration 0017).
      databaseUrl ??= (async () => {
        postgres = await startPostgresTestServer();
        const url = await postgres.createDatabase();
        const store = openPostgres(url);
        await store.migrate();
        await store.close();
        return url;
      })();
      return createPostgresLimits(await databaseUrl, silentLogger);
    },
    dispose: (limits) => limits.close(),
    shared: true,
  });

  it('redis unreachable at start: the adapter refuses to start, naming the address', async () => {
    const gone = await startRedisServer();
    await gone.stop();
    await assert.rejects(createRedisLimits({ url: gone.url, keyPrefix: 'x:', commandTimeoutMs: 500 }, silentLogger), new RegExp(`cannot reach Redis at ${gone.url}`));
  });

  it('redis away: rate limits count in the process (fail open), caps refuse (fail closed)', async () => {
    const own = await startRedisServer();
    const limits = await createRedisLimits({ url: own.url, keyPrefix: 'outage:', commandTimeoutMs: 500 }, silentLogger);
    try {
      const limiter = limits.rateLimiter('outage', { perSecond: 0.01, burst: 2 });
      assert.equal((await limiter.take('key')).allowed, true);
      await own.stop();
      // The fallback counts this process alone, from a fresh budget.
      assert.deepEqual(await Promise.all([limiter.take('key'), limiter.take('key'), limiter.take('key')]).then((all) => all.map((d) => d.allowed)), [true, true, false]);
      await assert.rejects(limits.concurrency('outage', 1, 30_000).tryAcquire('key'));
    } finally {
      await limits.close();
      await own.stop();
    }
  });
});
