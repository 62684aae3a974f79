/**
 * One engine's cluster-wide cap (render.engineLimits.vendor.maxConcurrent) held by two real
 * `worker` processes on one Postgres, their limits in Postgres: the engine never has more calls in
 * flight than its cap across both, and every render still completes (the rest wait in the queue).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../kit/testing/index.ts';
import { Cluster } from './support/cluster.ts';
import { startImageHost } from './support/generation-app.ts';
import { testCertificates } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

describe("two worker processes sharing one engine's cap", () => {
  let postgres: PostgresTestServer | undefined;
  let dir: string | undefined;
  const cluster: { current?: Cluster } = {};

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-engine-cap-'));
    postgres = await startPostgresTestServer();
  });
  after(async () => {
    await cluster.current?.stopAll();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('never has more calls in flight to the engine than its cap, together', { timeout: 240_000 }, async () => {
    const cap = 2;
    const renders = 8;
    let inFlight = 0;
    let mostInFlight = 0;
    let answered = 0;
    // The vendor holds each call a while, so calls overlap unless the cap holds them back.
    const vendor = createServer((_req, res) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      setTimeout(() => {
        inFlight -= 1;
        answered += 1;
        res.writeHead(200).end();
      }, 800);
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    const images = await startImageHost();
    try {
      const generous = { perSecond: 10_000, burst: 10_000 };
      writeFileSync(
        path.join(dir!, 'config.json'),
        JSON.stringify({
          rateLimits: { create: generous, read: generous },
          render: {
            engines: { 'virtual-try-on': [path.join(import.meta.dirname, 'fixtures', 'engines', 'vendor.ts')] },
            engineLimits: { vendor: { maxConcurrent: cap } },
            retryBaseDelayMs: 100,
          },
          workers: { concurrency: 4 },
          pluginOptions: {
            'queue-db': { pollIntervalMs: 100 },
            vendor: { url: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/render` },
          },
        }),
      );
      const current = new Cluster({
        DATABASE_URL: await postgres!.createDatabase(),
        VISUALIZER_CONFIG: path.join(dir!, 'config.json'),
        VISUALIZER_LIMITS: 'postgres',
        VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${images.port}`,
        NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
        LOG_LEVEL: 'warn',
      });
      cluster.current = current;
      const dataDir = (name: string) => ({ VISUALIZER_DATA_DIR: path.join(dir!, name) });
      await current.run(['migrate'], dataDir('cli'));
      const org = JSON.parse(
        await current.run(['orgs', 'create', '--name', 'capped', '--credits', '20', '--json'], dataDir('cli')),
      ) as { apiKey: string };
      const api = await current.api('api', dataDir('api'));
      await Promise.all([
        current.worker('worker-0', dataDir('worker-0')),
        current.worker('worker-1', dataDir('worker-1')),
      ]);

      const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
      const body = JSON.stringify({
        mode: 'virtual-try-on',
        image: `https://127.0.0.1:${images.port}/photo.jpg`,
        products: [
          { productId: 'sku-1', productTitle: 'Shirt', imageUrl: `https://127.0.0.1:${images.port}/product.png` },
        ],
      });
      const ids: string[] = [];
      for (let n = 0; n < renders; n++) {
        const created = await fetch(`${api.url}/v1/generations`, { method: 'POST', headers, body });
        assert.equal(created.status, 202, await created.clone().text());
        ids.push(((await created.json()) as { id: string }).id);
      }
      const statuses = async () =>
        Promise.all(
          ids.map(
            async (id) =>
              ((await (await fetch(`${api.url}/v1/generations/${id}`, { headers })).json()) as { status: string })
                .status,
          ),
        );
      await waitFor(
        `${renders} renders complete`,
        async () => (await sleep(200), (await statuses()).every((status) => status !== 'processing')),
        180_000,
      );
      assert.deepEqual(
        await statuses(),
        ids.map(() => 'complete'),
      );
      assert.equal(answered, renders, 'each render called the engine once');
      assert.ok(mostInFlight <= cap, `${mostInFlight} calls in flight at once; the cap is ${cap} across both workers`);
      assert.equal(mostInFlight, cap, 'the cap was reached: calls did overlap up to it');
      await current.stopAll();
    } finally {
      vendor.close();
      await images.close();
    }
  });
});
