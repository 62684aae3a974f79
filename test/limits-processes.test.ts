/**
 * Shared limits across real processes: two `serve --api-only` processes on one Postgres, their
 * limits in a real redis-server (then in Postgres itself). Requests alternate between the two and
 * the admitted count is one budget, not one per process: an API key's read limit, and a widget's
 * per-address read limit. With memory limits, for contrast, each process admits a budget of its own.
 * Then two `worker` processes deliver webhooks to one slow receiver within the per-endpoint cap.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../kit/testing/index.ts';
import { shopOrigin } from './support/browser-app.ts';
import { Cluster } from './support/cluster.ts';
import { startImageHost } from './support/generation-app.ts';
import { startHttpsServer, testCertificates } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';

/** Windows far longer than a test, so no budget refills while one runs. */
const readBurst = 6;
const widgetReadBurst = 4;
const requests = 16;

describe('limits shared by two API processes', () => {
  let postgres: PostgresTestServer | undefined;
  let redis: RedisTestServer | undefined;
  let dir: string | undefined;
  const clusters: Cluster[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-limits-'));
    postgres = await startPostgresTestServer();
    redis = await startRedisServer();
    writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        rateLimits: { read: { perSecond: 0.001, burst: readBurst } },
        widgets: { readsPerIp: { perSecond: 0.001, burst: widgetReadBurst } },
      }),
    );
  });
  after(async () => {
    for (const cluster of clusters) await cluster.stopAll();
    await redis?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Two API processes with `limits` on the given store, and an organization. */
  async function deployment(env: Record<string, string>, configFile = 'config.json') {
    const cluster = new Cluster({
      DATABASE_URL: await postgres!.createDatabase(),
      VISUALIZER_CONFIG: path.join(dir!, configFile),
      LOG_LEVEL: 'warn',
      ...env,
    });
    clusters.push(cluster);
    const dataDir = (name: string) => ({ VISUALIZER_DATA_DIR: path.join(dir!, `${env.VISUALIZER_LIMITS}-${name}`) });
    await cluster.run(['migrate'], dataDir('cli'));
    const org = JSON.parse(
      await cluster.run(['orgs', 'create', '--name', 'limits', '--credits', '10', '--json'], dataDir('cli')),
    ) as { apiKey: string; storeId: string };
    const apis = await Promise.all([cluster.api('api-0', dataDir('api-0')), cluster.api('api-1', dataDir('api-1'))]);
    return { cluster, org, urls: apis.map((api) => api.url), dataDir };
  }

  /** Sends `count` requests alternately to each process; counts the admitted, and checks every refusal is the spec's 429. */
  async function alternate(
    urls: string[],
    count: number,
    request: (url: string) => Promise<Response>,
  ): Promise<number> {
    let admitted = 0;
    for (let n = 0; n < count; n++) {
      const response = await request(urls[n % urls.length]!);
      const text = await response.text();
      if (response.status === 200) {
        admitted += 1;
        continue;
      }
      assert.equal(response.status, 429, text);
      assert.equal(JSON.parse(text).error.code, 'rate_limited');
      assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }
    return admitted;
  }

  for (const store of ['redis', 'postgres'] as const) {
    it(`admits one budget in all, on ${store}`, { timeout: 150_000 }, async () => {
      const { cluster, org, urls } = await deployment({
        VISUALIZER_LIMITS: store,
        ...(store === 'redis' ? { REDIS_URL: redis!.url } : {}),
      });
      const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

      // The widget's creation spends one of the key's reads.
      const created = await fetch(`${urls[0]}/v1/widgets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ storeId: org.storeId, mode: 'virtual-try-on', allowedOrigins: [shopOrigin] }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const widget = (await created.json()) as { id: string };

      const keyed = await alternate(urls, requests, (url) => fetch(`${url}/v1/widgets/${widget.id}`, { headers }));
      assert.equal(
        1 + keyed,
        readBurst,
        `the API key's reads across both processes: ${1 + keyed}, one budget of ${readBurst}`,
      );

      // Keyless widget reads, limited per client address (both processes see 127.0.0.1).
      const widgetReads = await alternate(urls, requests, (url) =>
        fetch(`${url}/api/widgets/${widget.id}`, { headers: { origin: shopOrigin } }),
      );
      assert.equal(
        widgetReads,
        widgetReadBurst,
        `widget reads from one address across both processes: ${widgetReads}, one budget of ${widgetReadBurst}`,
      );
      await cluster.stopAll();
    });
  }

  it('admits one budget per process with memory limits (what the shared stores prevent)', {
    timeout: 150_000,
  }, async () => {
    const { cluster, org, urls } = await deployment({ VISUALIZER_LIMITS: 'memory' });
    const headers = { authorization: `Bearer ${org.apiKey}` };
    const keyed = await alternate(urls, requests, (url) => fetch(`${url}/v1/stores`, { headers }));
    assert.equal(keyed, 2 * readBurst, `each process counts alone: ${keyed}`);
    await cluster.stopAll();
  });

  it('keeps webhook deliveries from two workers to one endpoint within the cluster-wide cap', {
    timeout: 150_000,
  }, async () => {
    const perEndpoint = 2;
    const deliveries = 8;
    let inFlight = 0;
    let mostInFlight = 0;
    // A slow receiver, so deliveries overlap unless the cap holds them back.
    const receiver = await startHttpsServer(async (_req, res) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await sleep(300);
      inFlight -= 1;
      res.writeHead(204).end();
    });
    const images = await startImageHost();
    try {
      const generous = { perSecond: 10_000, burst: 10_000 };
      writeFileSync(
        path.join(dir!, 'deliveries.json'),
        JSON.stringify({
          rateLimits: { create: generous, read: generous },
          webhooks: { maxConcurrentPerEndpoint: perEndpoint },
          pluginOptions: { 'queue-db': { pollIntervalMs: 200 } },
        }),
      );
      const env = {
        VISUALIZER_LIMITS: 'redis',
        REDIS_URL: redis!.url,
        VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${receiver.port},127.0.0.1:${images.port}`,
        NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      };
      const { cluster, org, urls, dataDir } = await deployment(env, 'deliveries.json');
      await Promise.all([
        cluster.worker('worker-0', dataDir('worker-0')),
        cluster.worker('worker-1', dataDir('worker-1')),
      ]);
      const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
      const endpoint = await fetch(`${urls[0]}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          url: `https://127.0.0.1:${receiver.port}/hook`,
          enabledEvents: ['generation.completed'],
        }),
      });
      assert.equal(endpoint.status, 201, await endpoint.clone().text());
      const body = JSON.stringify({
        mode: 'virtual-try-on',
        image: `https://127.0.0.1:${images.port}/photo.jpg`,
        products: [
          { productId: 'sku-1', productTitle: 'Shirt', imageUrl: `https://127.0.0.1:${images.port}/product.png` },
        ],
      });
      for (let n = 0; n < deliveries; n++) {
        const created = await fetch(`${urls[n % 2]}/v1/generations`, { method: 'POST', headers, body });
        assert.equal(created.status, 202, await created.clone().text());
      }
      await waitFor(`${deliveries} deliveries`, () => receiver.requests.length >= deliveries, 90_000);
      assert.ok(
        mostInFlight <= perEndpoint,
        `${mostInFlight} deliveries in flight at once to one endpoint; the cap is ${perEndpoint} across both workers`,
      );
      await cluster.stopAll();
    } finally {
      await receiver.close();
      await images.close();
    }
  });
});
