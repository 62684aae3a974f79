/**
 * A widget's daily credit cap across real processes: two `serve --api-only` processes on one
 * database, shoppers' generations sent to both at once. The cap is counted in the database, in
 * the transaction that charges the credits, so it holds whatever the `limits` store: with memory
 * limits (each process counting its own rate limits) as with Redis or Postgres limits, on Postgres
 * and on one SQLite file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { shopOrigin } from './support/browser-app.ts';
import { Cluster } from './support/cluster.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';

const generous = { perSecond: 10_000, burst: 10_000 };

describe("a widget's daily credit cap across two API processes", () => {
  let postgres: PostgresTestServer | undefined;
  let redis: RedisTestServer | undefined;
  let dir: string | undefined;
  const clusters: Cluster[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-widget-caps-'));
    [postgres, redis] = await Promise.all([startPostgresTestServer(), startRedisServer()]);
    // Every request comes from 127.0.0.1: only the widget's cap may refuse them.
    writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        rateLimits: { create: generous, read: generous },
        widgets: { generationsPerIp: generous, generationsPerVisitor: generous, readsPerIp: generous },
        createDevOrganization: false,
      }),
    );
  });
  after(async () => {
    for (const cluster of clusters) await cluster.stopAll();
    await redis?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deployments = [
    { database: 'postgres', limits: 'memory' },
    { database: 'postgres', limits: 'redis' },
    { database: 'postgres', limits: 'postgres' },
    { database: 'sqlite', limits: 'memory' },
  ] as const;

  for (const { database, limits } of deployments) {
    it(`admits no more than the cap's credits in all, on ${database} with ${limits} limits`, {
      timeout: 180_000,
    }, async () => {
      const name = `${database}-${limits}`;
      const cluster = new Cluster({
        ...(database === 'postgres' ? { DATABASE_URL: await postgres!.createDatabase() } : {}),
        VISUALIZER_CONFIG: path.join(dir!, 'config.json'),
        VISUALIZER_LIMITS: limits,
        ...(limits === 'redis' ? { REDIS_URL: redis!.url } : {}),
        LOG_LEVEL: 'warn',
      });
      clusters.push(cluster);
      // On Postgres each process has a data dir of its own; on SQLite the one file is the database.
      const dataDir = (process: string) => ({
        VISUALIZER_DATA_DIR: path.join(dir!, database === 'postgres' ? `${name}-${process}` : name),
      });
      await cluster.run(['migrate'], dataDir('cli'));
      const org = JSON.parse(
        await cluster.run(['orgs', 'create', '--name', 'caps', '--credits', '100', '--json'], dataDir('cli')),
      ) as { apiKey: string; storeId: string };
      const urls = (
        await Promise.all([cluster.api('api-0', dataDir('api-0')), cluster.api('api-1', dataDir('api-1'))])
      ).map((api) => api.url);

      const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
      const v1 = async (url: string, method: string, body?: unknown) => {
        const response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        assert.ok(response.ok, `${method} ${url}: ${response.status} ${text}`);
        return JSON.parse(text);
      };
      // 1K: one credit a generation.
      const widget = await v1(`${urls[0]}/v1/widgets`, 'POST', {
        storeId: org.storeId,
        mode: 'virtual-try-on',
        imageSize: '1K',
        allowedOrigins: [shopOrigin],
        dailyCreditCap: 5,
      });
      let shopper = 0;
      const generate = async (url: string) => {
        shopper += 1;
        const response = await fetch(`${url}/api/widgets/${widget.id}/generations`, {
          method: 'POST',
          headers: { origin: shopOrigin, 'content-type': 'application/json' },
          body: JSON.stringify({
            visitorId: `visitor-${shopper}`,
            sessionId: `session-${shopper}`,
            image: 'https://images.example/photo.jpg',
            products: [{ productId: 'sku-1', productTitle: 'Shirt', imageUrl: 'https://images.example/shirt.png' }],
          }),
        });
        const text = await response.text();
        if (response.status === 202) return 'admitted';
        assert.equal(response.status, 429, text);
        assert.equal(JSON.parse(text).error.code, 'daily_credit_cap_reached', text);
        assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
        return 'refused';
      };
      const admitted = (outcomes: string[]) => outcomes.filter((outcome) => outcome === 'admitted').length;

      // A burst at both processes at once: the cap's five credits, not five per process.
      const burst = await Promise.all(Array.from({ length: 16 }, (_, n) => generate(urls[n % 2]!)));
      assert.equal(admitted(burst), 5, `admitted across both processes: ${admitted(burst)}, the cap is 5 credits`);

      // At the very edge, round after round: one credit left, two requests at once, one to each process.
      for (let cap = 6; cap <= 10; cap++) {
        await v1(`${urls[cap % 2]}/v1/widgets/${widget.id}`, 'PATCH', { dailyCreditCap: cap });
        const pair = await Promise.all([generate(urls[0]!), generate(urls[1]!)]);
        assert.equal(admitted(pair), 1, `one credit left under a cap of ${cap}: ${pair.join(' and ')}`);
      }

      const read = await v1(`${urls[1]}/v1/widgets/${widget.id}`, 'GET');
      assert.deepEqual(
        [read.dailyCreditCap, read.usageToday.credits, read.usageToday.generations],
        [10, 10, 10],
        "today's use as both processes counted it",
      );
      const { balance } = await v1(`${urls[0]}/v1/credits`, 'GET');
      assert.equal(balance, 90, 'charged for the admitted generations alone');
      await cluster.stopAll();
    });
  }
});
