/**
 * The first burst of fresh processes on the pg-boss queue, with real processes on
 * default pool sizes: two `serve --api-only` processes and a `worker` on a migrated database, with
 * Redis limits. 40 concurrent creates (four API keys, 20 to each API process) are the first
 * requests either API process answers: every one is accepted (202), every generation completes
 * and its `generation.completed` webhook arrives, and no process logs a database outage. Straight
 * to Postgres the worker starts with the API processes; through PgBouncer in transaction mode it
 * starts after the burst, so its first jobs wait for it in a burst of their own. Each run has a
 * pg-boss schema of its own, so pg-boss starts on an empty schema as on a new deployment.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateWebhookSecret } from '../core/domain/webhook-signature.ts';
import { testIds } from '../kit/testing/ids.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { Cluster, type ClusterProcess } from './support/cluster.ts';
import { startImageHost } from './support/generation-app.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { startPgBouncer, type PgBouncerTestServer } from './support/pgbouncer.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';

const keys = 4;
const creates = 40;
/** A bound on a hung request or a stalled run, not a speed check. */
const hangMs = 60_000;
/** What a process logs when a request or job could not get a pooled connection, or pg-boss readied a kind late. */
const poolTrouble =
  /database unavailable|timeout exceeded|pg-boss maintenance failed|heartbeat failed|readied inside a transaction/;

interface Organization {
  apiKey: string;
  organizationId: string;
  webhookSecret: string;
}

describe('a fresh deployment on pg-boss answers its first burst of creates', { timeout: 240_000 }, () => {
  let postgres: PostgresTestServer | undefined;
  let pgbouncer: PgBouncerTestServer | undefined;
  let redis: RedisTestServer | undefined;
  let images: Awaited<ReturnType<typeof startImageHost>> | undefined;
  let receiver: TestHttpsServer | undefined;
  let dir: string | undefined;
  let databaseUrl: string;
  let baseEnv: Record<string, string>;
  const organizations: Organization[] = [];
  const clusters: Cluster[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-first-burst-'));
    postgres = await startPostgresTestServer();
    redis = await startRedisServer();
    images = await startImageHost();
    receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
    databaseUrl = await postgres.createDatabase();
    pgbouncer = await startPgBouncer(databaseUrl);
    baseEnv = {
      VISUALIZER_QUEUE: 'pgboss',
      VISUALIZER_LIMITS: 'redis',
      REDIS_URL: redis.url,
      VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${receiver.port},127.0.0.1:${images.port}`,
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      LOG_LEVEL: 'warn',
    };
    const setup = new Cluster({ ...baseEnv, DATABASE_URL: databaseUrl, VISUALIZER_DATA_DIR: path.join(dir, 'cli') });
    await setup.run(['migrate']);
    const made = await Promise.all(
      Array.from({ length: keys }, async (_, n) =>
        JSON.parse(await setup.run(['orgs', 'create', '--name', `burst-${n}`, '--credits', '1000', '--json'])),
      ),
    );
    // Endpoints written to the store, not through the API: the burst must be each API process's first request.
    const store = openPostgres(databaseUrl);
    try {
      for (const { apiKey, organizationId } of made as Array<{ apiKey: string; organizationId: string }>) {
        const webhookSecret = generateWebhookSecret();
        const now = Date.now();
        await store.webhookEndpoints.create({
          id: testIds.id('whe_'),
          organizationId,
          url: `https://127.0.0.1:${receiver.port}/hook`,
          description: null,
          enabledEvents: ['generation.completed'],
          status: 'enabled',
          disabledReason: null,
          secret: webhookSecret,
          previousSecrets: [],
          failingSince: null,
          createdAt: now,
          updatedAt: now,
        });
        organizations.push({ apiKey, organizationId, webhookSecret });
      }
    } finally {
      await store.close();
    }
  });

  after(async () => {
    for (const cluster of clusters) await cluster.stopAll();
    await receiver?.close();
    await images?.close();
    await redis?.stop();
    await pgbouncer?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A cluster on its own pg-boss schema, each process with a data directory of its own. */
  function clusterFor(run: string, env: Record<string, string>) {
    const config = path.join(dir!, `${run}.json`);
    const fast = { perSecond: 100_000, burst: 100_000 };
    writeFileSync(
      config,
      JSON.stringify({
        rateLimits: { create: fast, read: fast },
        webhooks: { retrySchedule: [0, 250, 500, 1_000, 2_000, 4_000] },
        pluginOptions: { 'queue-pgboss': { schema: `pgboss_${run}` } },
      }),
    );
    const cluster = new Cluster({ ...baseEnv, ...env, VISUALIZER_CONFIG: config });
    clusters.push(cluster);
    const dataDir = (name: string) => ({ VISUALIZER_DATA_DIR: path.join(dir!, `${run}-${name}`) });
    return {
      apis: () => Promise.all([cluster.api('api-0', dataDir('api-0')), cluster.api('api-1', dataDir('api-1'))]),
      worker: () => cluster.worker('worker', dataDir('worker')),
    };
  }

  const imageOrigin = () => `https://127.0.0.1:${images!.port}`;
  const headersOf = (organization: Organization) => ({
    authorization: `Bearer ${organization.apiKey}`,
    'content-type': 'application/json',
  });

  /** 40 creates at once, 20 to each API process, each process's spread over the four keys; no retries. */
  async function burst(t: TestContext, apis: Array<ClusterProcess & { url: string }>) {
    const startedAt = Date.now();
    const answers = await Promise.all(
      Array.from({ length: creates }, async (_, i) => {
        const api = apis[i % 2]!;
        const organization = organizations[Math.floor(i / 2) % keys]!;
        const response = await fetch(`${api.url}/v1/generations`, {
          method: 'POST',
          headers: { ...headersOf(organization), 'idempotency-key': `burst-${testIds.id('')}` },
          body: JSON.stringify({
            mode: 'virtual-try-on',
            image: `${imageOrigin()}/photo.jpg`,
            products: [{ productId: `sku-${i}`, productTitle: `Item ${i}`, imageUrl: `${imageOrigin()}/product.png` }],
          }),
          signal: AbortSignal.timeout(hangMs),
        }).catch((error: unknown) => ({ status: 0, text: async () => String(error) }));
        const text = await response.text();
        return { status: response.status, text, organization };
      }),
    );
    t.diagnostic(`${creates} first creates answered in ${Date.now() - startedAt} ms`);
    const refused = new Map<string, number>();
    for (const { status, text } of answers.filter((answer) => answer.status !== 202)) {
      const reason = `${status} ${/"code":"(\w+)"/.exec(text)?.[1] ?? text.slice(0, 200)}`;
      refused.set(reason, (refused.get(reason) ?? 0) + 1);
    }
    assert.deepEqual(
      Object.fromEntries(refused),
      {},
      'every first create is accepted (answers other than 202, by count)',
    );
    return answers.map((answer) => ({
      id: (JSON.parse(answer.text) as { id: string }).id,
      organization: answer.organization,
    }));
  }

  /** Every generation completes and its `generation.completed` arrives at the receiver, signed. */
  async function settles(t: TestContext, url: string, generations: Array<{ id: string; organization: Organization }>) {
    const startedAt = Date.now();
    const deadline = startedAt + hangMs;
    const status = async ({ id, organization }: (typeof generations)[number]) => {
      const response = await fetch(`${url}/v1/generations/${id}`, { headers: headersOf(organization) });
      assert.equal(response.status, 200, `${id}: ${await response.clone().text()}`);
      return ((await response.json()) as { status: string }).status;
    };
    let pending = generations;
    while (pending.length > 0 && Date.now() < deadline) {
      const statuses = await Promise.all(pending.map(status));
      pending = pending.filter((_, n) => statuses[n] === 'processing');
      if (pending.length > 0) await sleep(250);
    }
    const statuses = await Promise.all(generations.map(status));
    assert.deepEqual(
      generations.filter((_, n) => statuses[n] !== 'complete').map(({ id }, n) => `${id}: ${statuses[n]}`),
      [],
      'every generation completes',
    );
    const organizationOf = new Map(generations.map(({ id, organization }) => [id, organization]));
    const delivered = () => {
      const ids = new Set<string>();
      for (const request of receiver!.requests) {
        const { type, data } = JSON.parse(request.body.toString()) as { type: string; data: { id: string } };
        const organization = organizationOf.get(data.id);
        if (type !== 'generation.completed' || !organization) continue;
        verifyWebhook(organization.webhookSecret, request.headers, request.body);
        ids.add(data.id);
      }
      return ids;
    };
    const expected = new Set(generations.map(({ id }) => id));
    const missing = () => [...expected].filter((id) => !delivered().has(id));
    while (missing().length > 0 && Date.now() < deadline) await sleep(250);
    assert.deepEqual(missing(), [], 'every generation.completed was delivered');
    t.diagnostic(`settled ${Date.now() - startedAt} ms after the burst was answered`);
  }

  function assertNoPoolTrouble(processes: ClusterProcess[]) {
    for (const started of processes) {
      const troubled = started
        .output()
        .split('\n')
        .filter((line) => poolTrouble.test(line));
      assert.deepEqual(troubled, [], `${started.name} logged no pool trouble`);
    }
  }

  it('straight to Postgres: two fresh API processes and a fresh worker', async (t) => {
    const run = clusterFor('direct', { DATABASE_URL: databaseUrl });
    const [apis, worker] = await Promise.all([run.apis(), run.worker()]);
    const generations = await burst(t, apis);
    await settles(t, apis[0].url, generations);
    assertNoPoolTrouble([...apis, worker]);
    for (const started of [...apis, worker]) assert.equal(await started.stop('SIGTERM'), 0, `${started.name} stops`);
  });

  it('through PgBouncer in transaction mode, the worker started after the burst', async (t) => {
    const run = clusterFor('pooled', {
      DATABASE_URL: pgbouncer!.url(databaseUrl),
      DATABASE_POOLED: 'true',
      DATABASE_DIRECT_URL: databaseUrl,
    });
    const apis = await run.apis();
    const generations = await burst(t, apis);
    // Its first jobs are the burst's 40 renders, waiting for it.
    const worker = await run.worker();
    await settles(t, apis[0].url, generations);
    assertNoPoolTrouble([...apis, worker]);
    for (const started of [...apis, worker]) assert.equal(await started.stop('SIGTERM'), 0, `${started.name} stops`);
  });
});
