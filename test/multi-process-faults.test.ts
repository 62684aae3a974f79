/**
 * The multi-host deployment under faults, with real processes: two `serve --api-only` processes,
 * two `worker` processes, one Postgres with the pg-boss queue, s3rver as the image store and a real HTTPS webhook
 * receiver that the outbound guard allows by its address and port alone. A bounded load of
 * creates, each idempotency key sent to both API processes (some at once), plus widget creates,
 * while one worker is SIGKILLed (not replaced: the survivor must take over its leased jobs) and one
 * API process is restarted on its port (clients retry connection errors with the same key); no
 * create answers 503, the first burst of a fresh or restarted process included. In the
 * end every accepted generation is complete, one per key, charged once, and its
 * `generation.completed` webhook arrived, correctly signed, at least once; and with the limits in
 * Redis, one shopper's widget creates spread over both API processes are admitted up to one limit.
 * Apart, a worker SIGKILLed while it holds every delivery slot of an endpoint: the live processes
 * free its slots before their leases end, and the deliveries waiting on them are postponed a few
 * times each, not once a second.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../core/http/free-port.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { shopOrigin } from './support/browser-app.ts';
import { Cluster, type ClusterProcess } from './support/cluster.ts';
import { startImageHost } from './support/generation-app.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { parsePrometheus, sampleValue } from './support/prometheus.ts';
import { startRedisServer, type RedisTestServer } from './support/redis-server.ts';
import { createResponseValidator } from './support/response-validator.ts';
import { startS3rver } from './support/s3-server.ts';

/** Keyed creates, each key sent twice (once to each API process); every third key to both at once. */
const keyedCreates = 60;
/** Widget creates from distinct visitors, to the API process that is not restarted (they carry no key a retry could reuse). */
const widgetCreates = 8;
const credits = 1_000;
/** Long enough that the killed worker has renders in flight, short enough to keep the run brief. */
const engineLatencyMs = 800;
const bucket = 'visualizer-faults';
/** A shopper's widget creates the limits admit, across both API processes together (the limits live in Redis). */
const visitorBurst = 3;

// The servers run in child processes, so their answers are checked against the OpenAPI document here.
const responses = createResponseValidator();
const fetch = responses.fetch;

describe('two API processes and two workers on Postgres and s3rver, under faults', () => {
  let postgres: PostgresTestServer | undefined;
  let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
  let images: Awaited<ReturnType<typeof startImageHost>> | undefined;
  let receiver: TestHttpsServer | undefined;
  let redis: RedisTestServer | undefined;
  let cluster: Cluster | undefined;
  let dir: string | undefined;
  /** The S3 CDN's options for the s3rver both tests store images on. */
  const s3Options = () => ({
    bucket,
    endpoint: s3!.endpoint,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-faults-'));
    postgres = await startPostgresTestServer();
    s3 = await startS3rver(bucket);
    images = await startImageHost();
    receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
    redis = await startRedisServer();
  });
  after(async () => {
    await cluster?.stopAll();
    await receiver?.close();
    await images?.close();
    await s3?.close();
    await redis?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await responses.assertNoViolations();
  });

  // A bound for a hung run, not a speed check: it takes about a minute, and beside other suites on a loaded host twice that.
  it('completes every accepted generation once, charges it once, delivers its webhook, and shares one widget limit', {
    timeout: 240_000,
  }, async () => {
    // Addresses, not `localhost`: the guard allows exactly these two loopback ports and nothing else.
    const imageOrigin = `https://127.0.0.1:${images!.port}`;
    const receiverUrl = `https://127.0.0.1:${receiver!.port}/hook`;
    const config = path.join(dir!, 'config.json');
    const fast = { perSecond: 100_000, burst: 100_000 };
    writeFileSync(
      config,
      JSON.stringify({
        plugins: { cdn: 's3' },
        rateLimits: { create: fast, read: fast },
        // A visitor's bucket barely refills during the test, so what both processes admit together is its burst.
        widgets: {
          generationsPerIp: fast,
          generationsPerVisitor: { perSecond: 0.001, burst: visitorBurst },
          readsPerIp: fast,
        },
        webhooks: { retrySchedule: [0, 250, 500, 1_000, 2_000, 4_000] },
        pluginOptions: {
          'cdn-s3': s3Options(),
          'renderer-mock': { latencyMs: engineLatencyMs },
          // A killed worker's jobs return after the lease; idle workers also poll, in case a wake-up is missed.
          'queue-db': { leaseMs: 2_000, pollIntervalMs: 200 },
          'queue-pgboss': { leaseMs: 2_000, pollIntervalMs: 200 },
        },
      }),
    );
    cluster = new Cluster({
      DATABASE_URL: await postgres!.createDatabase(),
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${receiver!.port},127.0.0.1:${images!.port}`,
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      VISUALIZER_WORKER_CONCURRENCY: '4',
      VISUALIZER_LIMITS: 'redis',
      REDIS_URL: redis!.url,
      // pg-boss: a fresh or restarted API process must ready it before it listens, or its first
      // burst of creates waits on connections the burst holds (test/first-burst-processes.test.ts
      // covers PgBouncer; the second test here runs the db queue).
      VISUALIZER_QUEUE: 'pgboss',
      LOG_LEVEL: 'warn',
    });
    // Each process gets a data dir of its own: nothing may depend on files another process wrote.
    const dataDir = (name: string) => ({ VISUALIZER_DATA_DIR: path.join(dir!, name) });
    await cluster.run(['migrate'], dataDir('cli'));
    const org = JSON.parse(
      await cluster.run(['orgs', 'create', '--name', 'faults', '--credits', String(credits), '--json'], dataDir('cli')),
    ) as { apiKey: string; storeId: string };
    const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

    const ports = [await freePort(), await freePort()];
    const apiEnv = (index: number) => ({ ...dataDir(`api-${index}`), PORT: String(ports[index]) });
    const apis: ClusterProcess[] = [await cluster.api('api-0', apiEnv(0)), await cluster.api('api-1', apiEnv(1))];
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    const workers = [
      await cluster.worker('worker-0', dataDir('worker-0')),
      await cluster.worker('worker-1', dataDir('worker-1')),
    ];

    const endpointResponse = await fetch(`${urls[0]}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiverUrl, enabledEvents: ['generation.completed'] }),
    });
    assert.equal(endpointResponse.status, 201, await endpointResponse.clone().text());
    const { secret } = (await endpointResponse.json()) as { secret: string };
    const widgetResponse = await fetch(`${urls[1]}/v1/widgets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ storeId: org.storeId, mode: 'virtual-try-on', allowedOrigins: [shopOrigin] }),
    });
    assert.equal(widgetResponse.status, 201, await widgetResponse.clone().text());
    const widget = (await widgetResponse.json()) as { id: string };

    const product = (i: number) => [
      { productId: `sku-${i}`, productTitle: `Item ${i}`, imageUrl: `${imageOrigin}/product.png` },
    ];
    const body = (i: number) =>
      JSON.stringify({ mode: 'virtual-try-on', image: `${imageOrigin}/photo.jpg`, products: product(i) });
    const deadline = Date.now() + 60_000;
    /** 503 answers to creates: a client retries them, but nothing in this test makes the database unavailable. */
    const unavailable: string[] = [];
    /** One client's create with its key: connection errors (a process restarting) and 503s are retried with the same key. */
    async function create(api: number, key: string, i: number): Promise<{ status: number; id: string }> {
      for (;;) {
        const response = await fetch(`${urls[api]}/v1/generations`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': key },
          body: body(i),
        }).catch(() => null);
        const text = response ? await response.text().catch(() => null) : null;
        if (response?.status === 503) unavailable.push(`${key} on api-${api}: ${text}`);
        if (response && text !== null && response.status !== 503) {
          assert.ok(
            response.status === 202 || response.status === 200,
            `${key} on api-${api}: ${response.status} ${text}`,
          );
          return { status: response.status, id: (JSON.parse(text) as { id: string }).id };
        }
        if (Date.now() > deadline) throw new Error(`${key} on api-${api}: no answer before the deadline`);
        await sleep(100);
      }
    }

    // The faults, triggered by progress: the worker dies a third of the way in, the API process restarts at two thirds.
    let accepted = 0;
    let faults = Promise.resolve();
    const progressed = () => {
      accepted += 1;
      if (accepted === Math.floor(keyedCreates / 3)) {
        faults = faults.then(async () => void (await workers[0]!.stop('SIGKILL')));
      }
      if (accepted === Math.floor((2 * keyedCreates) / 3)) {
        faults = faults.then(async () => {
          assert.equal(await apis[0]!.stop('SIGTERM'), 0, 'the API process stops cleanly on SIGTERM');
          apis[0] = await cluster!.api('api-0 (restarted)', apiEnv(0));
        });
      }
    };

    const byKey = new Map<string, Array<{ status: number; id: string }>>();
    let next = 0;
    // 16 clients at once, some sending a key to both processes: the fresh API processes' first
    // creates come as a burst of about 20, more than a process's pool of 10 connections.
    const keyedLoad = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < keyedCreates) {
          const i = next++;
          const key = `order-${i}`;
          const first = i % 2;
          const answers =
            i % 3 === 0
              ? await Promise.all([create(0, key, i), create(1, key, i)])
              : [await create(first, key, i), await create(1 - first, key, i)];
          byKey.set(key, answers);
          progressed();
        }
      }),
    );
    const widgetCreate = (api: number, visitor: string, i: number) =>
      fetch(`${urls[api]}/api/widgets/${widget.id}/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: shopOrigin },
        body: JSON.stringify({
          visitorId: visitor,
          sessionId: `session-${visitor}`,
          image: `${imageOrigin}/photo.jpg`,
          products: product(1_000 + i),
        }),
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    const widgetLoad = (async () => {
      const ids: string[] = [];
      for (let i = 0; i < widgetCreates; i++) {
        const { status, text } = await widgetCreate(1, `visitor-${i}`, i);
        assert.equal(status, 202, text);
        ids.push((JSON.parse(text) as { id: string }).id);
        await sleep(150);
      }
      return ids;
    })();
    const [, widgetIds] = await Promise.all([keyedLoad, widgetLoad]);
    await faults;
    assert.notEqual(workers[0]!.child.signalCode, null, 'the first worker was killed');
    assert.deepEqual(
      unavailable,
      [],
      'no create, not even the first burst of a fresh or restarted process, answered 503',
    );

    // One generation per key, whichever process answered, created once.
    for (const [key, answers] of byKey) {
      assert.equal(answers[0]!.id, answers[1]!.id, `${key}: both processes answer the same generation`);
      assert.ok(
        answers.filter((answer) => answer.status === 202).length <= 1,
        `${key}: created at most once (${answers.map((a) => a.status)})`,
      );
    }
    const keyedIds = new Set([...byKey.values()].map((answers) => answers[0]!.id));
    assert.equal(keyedIds.size, keyedCreates);

    // One shopper asks both API processes for twice the burst at once: together they admit the burst, once.
    const burst = await Promise.all(
      Array.from({ length: 2 * visitorBurst }, (_, i) => widgetCreate(i % 2, 'visitor-limited', 2_000 + i)),
    );
    const admitted = burst.filter((answer) => answer.status === 202);
    assert.equal(
      admitted.length,
      visitorBurst,
      `admitted across both processes: ${burst.map((answer) => answer.status)}`,
    );
    assert.deepEqual(
      burst.filter((answer) => answer.status !== 202).map((answer) => answer.status),
      Array(visitorBurst).fill(429),
    );
    const limitedIds = admitted.map((answer) => (JSON.parse(answer.text) as { id: string }).id);

    const acceptedIds = new Set([...keyedIds, ...widgetIds, ...limitedIds]);
    assert.equal(acceptedIds.size, keyedCreates + widgetCreates + visitorBurst);

    // Every accepted generation completes; nothing else was made.
    const get = (url: string) =>
      fetch(`${urls[1]}${url}`, { headers }).then(async (response) => {
        assert.equal(response.status, 200, `${url}: ${await response.clone().text()}`);
        return response.json();
      });
    for (;;) {
      const processing = (await get('/v1/generations?status=processing&limit=1')) as { data: unknown[] };
      if (processing.data.length === 0) break;
      assert.ok(Date.now() < deadline + 30_000, 'every generation settles');
      await sleep(250);
    }
    const all = await pages<{ id: string; status: string; imageSize: string }>(get, '/v1/generations');
    assert.deepEqual(
      new Set(all.map((generation) => generation.id)),
      acceptedIds,
      'the stored generations are exactly the accepted ones',
    );
    assert.deepEqual(
      all.filter((generation) => generation.status !== 'complete').map((generation) => generation.id),
      [],
      'all complete',
    );

    // Charged once per generation: one debit each in the ledger, no refund, and the balance agrees.
    const ledger = await pages<{ delta: number; reason: string; reference: string | null }>(get, '/v1/credits/ledger');
    const debits = ledger.filter((entry) => entry.reason === 'generation');
    assert.equal(debits.length, acceptedIds.size, 'one debit per generation');
    assert.deepEqual(new Set(debits.map((entry) => entry.reference)), acceptedIds);
    assert.deepEqual(
      ledger.filter((entry) => entry.reason === 'generation_refund').map((entry) => entry.reference),
      [],
      'no refunds',
    );
    const charged = -debits.reduce((total, entry) => total + entry.delta, 0);
    assert.equal(((await get('/v1/credits')) as { balance: number }).balance, credits - charged);

    // Each completion's webhook reached the receiver, signed with the endpoint's secret (repeats allowed: at least once).
    const delivered = () => {
      const completed = new Set<string>();
      for (const request of receiver!.requests) {
        const event = verifyWebhook(secret, request.headers, request.body) as {
          type: string;
          data: { id: string; status: string };
        };
        assert.equal(event.type, 'generation.completed');
        completed.add(event.data.id);
      }
      return completed;
    };
    while (delivered().size < acceptedIds.size && Date.now() < deadline + 45_000) await sleep(250);
    assert.deepEqual(delivered(), acceptedIds, 'every generation.completed was delivered');

    for (const api of apis) assert.equal(await api.stop('SIGTERM'), 0);
    assert.equal(await workers[1]!.stop('SIGTERM'), 0);
  });
  // A bound for a hung run, not a speed check.
  it("frees a killed worker's webhook slots before their leases end, and its deliveries wait a few postponements", {
    timeout: 240_000,
  }, async () => {
    /** Slots of the receiver's endpoint, across the cluster. */
    const limit = 2;
    const deliveries = 12;
    // The receiver holds the first `limit` deliveries unanswered until the kill: the doomed worker then holds every slot.
    let killed = false;
    let held = 0;
    const slow = await startHttpsServer((_req, res) => {
      if (!killed && held < limit) {
        held += 1;
        return;
      }
      res.writeHead(204).end();
    });
    const config = path.join(dir!, 'slots-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        plugins: { cdn: 's3' },
        webhooks: { maxConcurrentPerEndpoint: limit, timeoutMs: 200_000 },
        pluginOptions: {
          'cdn-s3': s3Options(),
          'renderer-mock': { latencyMs: 50 },
          // The killed worker's two running deliveries return to the queue soon: its slots are what is tested.
          'queue-db': { leaseMs: 2_000, pollIntervalMs: 200 },
        },
      }),
    );
    const databaseUrl = await postgres!.createDatabase();
    const slots = new Cluster({
      DATABASE_URL: databaseUrl,
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${slow.port},127.0.0.1:${images!.port}`,
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      VISUALIZER_LIMITS: 'redis',
      REDIS_URL: redis!.url,
      LOG_LEVEL: 'warn',
    });
    const store = new Redis(redis!.url);
    const database = new pg.Client({ connectionString: databaseUrl });
    try {
      const dataDir = (name: string) => ({ VISUALIZER_DATA_DIR: path.join(dir!, `slots-${name}`) });
      await slots.run(['migrate'], dataDir('cli'));
      await database.connect();
      const org = JSON.parse(
        await slots.run(['orgs', 'create', '--name', 'slots', '--credits', '100', '--json'], dataDir('cli')),
      ) as { apiKey: string };
      const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
      const api = await slots.api('api', dataDir('api'));
      const endpointResponse = await fetch(`${api.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `https://127.0.0.1:${slow.port}/hook`, enabledEvents: ['generation.completed'] }),
      });
      assert.equal(endpointResponse.status, 201, await endpointResponse.clone().text());
      const endpoint = (await endpointResponse.json()) as { id: string };

      // The doomed worker alone renders every generation and takes every slot of the endpoint.
      const doomed = await slots.worker('worker-0', dataDir('worker-0'));
      const imageOrigin = `https://127.0.0.1:${images!.port}`;
      for (let i = 0; i < deliveries; i++) {
        const response = await fetch(`${api.url}/v1/generations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            mode: 'virtual-try-on',
            image: `${imageOrigin}/photo.jpg`,
            products: [{ productId: `sku-${i}`, productTitle: `Item ${i}`, imageUrl: `${imageOrigin}/product.png` }],
          }),
        });
        assert.equal(response.status, 202, await response.clone().text());
      }
      const deadline = Date.now() + 120_000;
      while (held < limit) {
        assert.ok(Date.now() < deadline, `the doomed worker took ${held} of ${limit} slots`);
        await sleep(100);
      }

      // The survivor starts while the doomed worker holds the slots; from the kill on, its postponements are counted.
      const metricsPort = await freePort();
      const survivor = await slots.worker('worker-1', {
        ...dataDir('worker-1'),
        VISUALIZER_METRICS_PORT: String(metricsPort),
      });
      // Its metrics server starts after the ready line.
      while (!survivor.output().includes('Metrics:')) {
        assert.ok(Date.now() < deadline, 'the survivor serves its metrics');
        await sleep(100);
      }
      const postponed = async () =>
        sampleValue(
          parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()),
          'job_runs_total',
          { kind: 'deliver_webhook', outcome: 'postponed' },
        ) ?? 0;

      // The registry records the instance the doomed worker's slots are held under.
      const { rows } = await database.query<{ details: string }>('select details from processes where pid = $1', [
        doomed.child.pid,
      ]);
      assert.equal(rows.length, 1);
      const instance = (JSON.parse(rows[0]!.details) as { limitsInstance: string }).limitsInstance;
      const slotKey = `visualizer:limits:slots:webhook-endpoint:${endpoint.id}`;
      const doomedSlots = await store.zrange(slotKey, 0, -1);
      assert.equal(doomedSlots.length, limit);
      assert.ok(
        doomedSlots.every((holder) => holder.startsWith(`${instance}:`)),
        'held under its instance',
      );
      /** When the first of its leases would end, on the store's clock. */
      const leaseEnds = Math.min(...(await store.zmscore(slotKey, ...doomedSlots)).map(Number));

      const postponedBefore = await postponed();
      killed = true;
      await doomed.stop('SIGKILL');

      // Freed by the survivors' sweep, not by expiry: gone while the store's clock is still before their leases end.
      for (;;) {
        const still = await store.zmscore(slotKey, ...doomedSlots);
        if (still.every((score) => score === null)) break;
        assert.ok(Date.now() < deadline, "the dead worker's slots are freed");
        await sleep(100);
      }
      const [seconds, micros] = await store.time();
      assert.ok(
        Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) < leaseEnds,
        'freed before the leases would have ended',
      );
      assert.deepEqual(
        (await database.query('select id from processes where pid = $1', [doomed.child.pid])).rows,
        [],
        "the dead worker's registration is removed",
      );

      // Every delivery arrives, each having waited a few postponements at most, not one a second for the lease.
      for (let succeeded = 0; succeeded < deliveries; succeeded = await succeededDeliveries(database)) {
        assert.ok(Date.now() < deadline, `${succeeded} of ${deliveries} deliveries arrived`);
        await sleep(100);
      }
      const count = (await postponed()) - postponedBefore;
      assert.ok(count <= 5 * deliveries, `${count} postponements for ${deliveries} deliveries after the kill`);

      assert.equal(await survivor.stop('SIGTERM'), 0);
      assert.equal(await api.stop('SIGTERM'), 0);
    } finally {
      await slots.stopAll();
      await store.quit();
      await database.end();
      await slow.close();
    }
  });
});

/** Every item of a list route, page by page. */
async function pages<T>(get: (url: string) => Promise<unknown>, route: string): Promise<T[]> {
  const items: T[] = [];
  let after = '';
  for (;;) {
    const page = (await get(`${route}?limit=100${after}`)) as { data: Array<T & { id: string }>; has_more: boolean };
    items.push(...page.data);
    if (!page.has_more) return items;
    after = `&starting_after=${page.data.at(-1)!.id}`;
  }
}

/** Deliveries that succeeded (a receiver's log also holds attempts whose answers were lost with their worker). */
async function succeededDeliveries(database: pg.Client): Promise<number> {
  const { rows } = await database.query<{ count: string }>(
    "select count(*) from event_deliveries where status = 'succeeded'",
  );
  return Number(rows[0]!.count);
}
