import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { silentLogger } from '../core/logger.ts';
import { limitsContract } from '../kit/testing/index.ts';
import { createMemoryLimits } from '../plugins/limits-memory/index.ts';
import { createPostgresLimits } from '../plugins/limits-postgres/index.ts';
import { createRedisLimits } from '../plugins/limits-redis/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { cuttableRelay } from './support/cuttable-relay.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';

describe('limits adapters', () => {
  let redis: RedisTestServer | undefined;
  let redisStats: Redis | undefined;
  let postgres: PostgresTestServer | undefined;
  let databaseUrl: Promise<string> | undefined;
  const relays: Array<Awaited<ReturnType<typeof cuttableRelay>>> = [];
  after(async () => {
    for (const relay of relays) await relay.close();
    await redisStats?.quit();
    await redis?.stop();
    await postgres?.stop();
  });

  /** A relay to `url`'s server that can be cut, and `url` through it. */
  async function throughRelay(url: string) {
    const target = new URL(url);
    const relay = await cuttableRelay({ host: target.hostname, port: Number(target.port) });
    relays.push(relay);
    target.port = String(relay.port);
    return { relay, url: target.href.replace(/\/$/, '') };
  }

  limitsContract({ name: 'memory', create: () => createMemoryLimits(), shared: false });

  const startRedis = async () => (redis ??= await startRedisServer());
  limitsContract({
    name: 'redis',
    create: async () =>
      createRedisLimits({ url: (await startRedis()).url, keyPrefix: 'test:', commandTimeoutMs: 2_000 }, silentLogger),
    dispose: (limits) => limits.close(),
    shared: true,
    // Every rate operation is one script call (the caps' scripts run in tests of their own).
    async storeCalls() {
      redisStats ??= new Redis((await startRedis()).url);
      const info = await redisStats.info('commandstats');
      return [...info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
        (total, match) => total + Number(match[1]),
        0,
      );
    },
    async withOutage() {
      const { relay, url } = await throughRelay((await startRedis()).url);
      const limits = await createRedisLimits({ url, keyPrefix: 'outage:', commandTimeoutMs: 500 }, silentLogger);
      return { limits, cut: () => relay.cut(), dispose: () => limits.close() };
    },
  });

  // One database for every instance, migrated as `visualizer migrate` would (migration 0017), with a
  // count of the rate writes the store has served: a sequence is not rolled back, and a BEFORE
  // INSERT trigger fires for an upsert whether it inserts or updates.
  const database = () =>
    (databaseUrl ??= (async () => {
      postgres = await startPostgresTestServer();
      const url = await postgres.createDatabase();
      const store = openPostgres(url);
      await store.migrate();
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`create sequence test_rate_writes;
        create function count_rate_write() returns trigger language plpgsql as $$ begin perform nextval('test_rate_writes'); return new; end $$;
        create trigger count_rate_writes before insert on limit_rates for each row execute function count_rate_write();`);
      await client.end();
      return url;
    })());
  limitsContract({
    name: 'postgres',
    create: async () => createPostgresLimits(await database(), silentLogger),
    dispose: (limits) => limits.close(),
    shared: true,
    async storeCalls() {
      const client = new pg.Client({ connectionString: await database() });
      await client.connect();
      try {
        const { rows } = await client.query<{ writes: string }>(
          'select case when is_called then last_value else 0 end as writes from test_rate_writes',
        );
        return Number(rows[0]!.writes);
      } finally {
        await client.end();
      }
    },
    async withOutage() {
      const { relay, url } = await throughRelay(await database());
      const limits = createPostgresLimits(url, silentLogger);
      return { limits, cut: () => relay.cut(), dispose: () => limits.close() };
    },
  });

  it('redis unreachable at start: the adapter refuses to start, naming the address', async () => {
    const gone = await startRedisServer();
    await gone.stop();
    await assert.rejects(
      createRedisLimits({ url: gone.url, keyPrefix: 'x:', commandTimeoutMs: 500 }, silentLogger),
      new RegExp(`cannot reach Redis at ${gone.url}`),
    );
  });
});
