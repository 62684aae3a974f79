import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, get, request, type IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../core/http/free-port.ts';
import type { Cradle } from '../core/cradle.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { bin } from './support/cli.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type TestHttpsServer } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { parsePrometheus, samplesOf, scrape, sampleValue, type Sample } from './support/prometheus.ts';
import { waitFor } from './support/wait-for.ts';

/** Enqueues `count` jobs of `kind` (which no worker takes), due `dueAgoMs` ago, as the services do: inside a transaction. */
async function enqueueProbes({ persistence, queue, clock }: Cradle, kind: string, count: number, dueAgoMs: number) {
  const now = clock.now();
  await persistence.transaction(async (tx) => {
    for (let i = 0; i < count; i++)
      await queue.enqueue(tx, { kind, payload: { i }, runAt: now - dueAgoMs, createdAt: now - dueAgoMs });
  });
}

describe('metrics on the API: GET /metrics', () => {
  let g: GenerationApp;
  let key: string;
  let receiver: TestHttpsServer;
  before(async () => {
    // A webhook receiver that takes /ok and answers /gone with 410 Gone (the final failure).
    receiver = await startHttpsServer((req, res) => void res.writeHead(req.url === '/ok' ? 200 : 410).end());
    g = await startGenerationApp();
    key = (await g.app.tenants.createOrganization({ name: 'Metrics', credits: 100 })).apiKey.key;
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  it('counts requests by route pattern, method and status, with latency buckets', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${g.app.url}/healthz`)).status, 200);
    for (const id of ['gen_missing_one', 'gen_missing_two'])
      assert.equal((await g.api.get(key, `/v1/generations/${id}`)).status, 404);
    assert.equal((await fetch(`${g.app.url}/no/such/route`)).status, 404);

    const response = await fetch(`${g.app.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const samples = parsePrometheus(text);

    assert.equal(sampleValue(samples, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' }), 3);
    assert.equal(
      sampleValue(samples, 'http_requests_total', { method: 'GET', route: '/v1/generations/:id', status: '404' }),
      2,
    );
    assert.equal(sampleValue(samples, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.doesNotMatch(text, /gen_missing|no\/such/, 'raw paths never become label values');

    const buckets = samplesOf(samples, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/healthz' });
    assert.ok(buckets.length >= 10, 'a bucket per bound');
    const counts = buckets.map((bucket) => bucket.value);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => a - b),
      'buckets are cumulative',
    );
    assert.equal(buckets.find((bucket) => bucket.labels.le === '+Inf')!.value, 3);
    assert.equal(sampleValue(samples, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz' }), 3);
    assert.ok(sampleValue(samples, 'http_request_duration_seconds_sum', { method: 'GET', route: '/healthz' })! > 0);

    assert.ok(sampleValue(samples, 'process_cpu_user_seconds_total')! > 0, "the process's default metrics");
    assert.ok(sampleValue(samples, 'nodejs_heap_size_used_bytes')! > 0);
    assert.equal(samplesOf(samples, 'db_pool_connections').length, 0, 'SQLite has no pool');
  });

  it('reports the queue depth and lag per job kind from the database', async () => {
    await enqueueProbes(g.app.container.cradle, 'metrics_probe', 2, 5_000);
    const now = g.app.container.cradle.clock.now();
    await g.app.container.cradle.persistence.transaction((tx) =>
      g.app.container.cradle.queue.enqueue(tx, {
        kind: 'metrics_probe',
        payload: {},
        runAt: now + 3_600_000,
        createdAt: now,
      }),
    );
    const samples = await scrape(`${g.app.url}/metrics`);
    assert.equal(sampleValue(samples, 'job_queue_due', { kind: 'metrics_probe' }), 2);
    assert.equal(sampleValue(samples, 'job_queue_scheduled', { kind: 'metrics_probe' }), 1);
    assert.equal(sampleValue(samples, 'job_queue_running', { kind: 'metrics_probe' }), 0);
    assert.ok(
      sampleValue(samples, 'job_queue_lag_seconds', { kind: 'metrics_probe' })! >= 5,
      'the oldest was due 5 s before it was enqueued',
    );
  });

  it('counts renders, deliveries and job runs by outcome, with their durations', async () => {
    for (const [path, event] of [
      ['/ok', 'generation.completed'],
      ['/gone', 'generation.failed'],
    ]) {
      const created = await fetch(`${g.app.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}${path}`, enabledEvents: [event] }),
      });
      assert.equal(created.status, 201, await created.clone().text());
    }
    const completed = await (await g.api.post(key, g.validBody())).json();
    const failing = await (
      await g.api.post(
        key,
        g.validBody({ products: [{ productId: 'sku-2', productTitle: 'Gone', imageUrl: `${g.host.url}/missing` }] }),
      )
    ).json();
    assert.equal((await g.api.settled(key, completed.id)).status, 'complete');
    assert.equal((await g.api.settled(key, failing.id)).status, 'failed');

    const samples = await scrape(`${g.app.url}/metrics`);
    assert.equal(sampleValue(samples, 'renders_total', { outcome: 'completed' }), 1);
    assert.equal(sampleValue(samples, 'renders_total', { outcome: 'failed' }), 1);
    assert.equal(sampleValue(samples, 'render_duration_seconds_count', { outcome: 'completed' }), 1);
    assert.equal(sampleValue(samples, 'render_duration_seconds_bucket', { outcome: 'completed', le: '+Inf' }), 1);
    // The queue's view: both runs finished their job.
    assert.equal(sampleValue(samples, 'job_runs_total', { kind: 'render_generation', outcome: 'completed' }), 2);
    assert.equal(
      sampleValue(samples, 'job_run_duration_seconds_count', { kind: 'render_generation', outcome: 'completed' }),
      2,
    );
    assert.equal(
      sampleValue(samples, 'http_requests_total', { method: 'POST', route: '/v1/generations', status: '202' }),
      2,
    );

    let deliveries: Sample[] = [];
    await waitFor('both deliveries', async () => {
      deliveries = samplesOf(await scrape(`${g.app.url}/metrics`), 'webhook_deliveries_total');
      return deliveries.reduce((sum, sample) => sum + sample.value, 0) >= 2;
    });
    assert.deepEqual(Object.fromEntries(deliveries.map((sample) => [sample.labels.outcome, sample.value])), {
      delivered: 1,
      failed: 1,
    });
    const timed = await scrape(`${g.app.url}/metrics`);
    assert.equal(sampleValue(timed, 'webhook_delivery_duration_seconds_count', { outcome: 'delivered' }), 1);
    assert.equal(sampleValue(timed, 'job_runs_total', { kind: 'deliver_webhook', outcome: 'completed' }), 2);
  });
});

describe('metrics access', () => {
  let app: TestApp;
  after(() => app?.close());

  it('asks for the bearer token when metrics.token is set', async () => {
    app = await startTestApp({ env: { VISUALIZER_METRICS_TOKEN: 'scrape-token-0123456789' } });
    const refused = await fetch(`${app.url}/metrics`);
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).error.code, 'invalid_metrics_token');
    assert.equal((await fetch(`${app.url}/metrics`, { headers: bearer('not-the-token-at-all') })).status, 401);
    const allowed = await fetch(`${app.url}/metrics`, { headers: bearer('scrape-token-0123456789') });
    assert.equal(allowed.status, 200);
    assert.match(await allowed.text(), /^# HELP /m);
    await app.close();
  });

  it('has no /metrics when metrics.enabled is false', async () => {
    app = await startTestApp({ config: { metrics: { enabled: false } } });
    const response = await fetch(`${app.url}/metrics`);
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, 'route_not_found');
  });
});

describe('metrics on Postgres, and of a worker process', () => {
  let postgres: PostgresTestServer;
  let app: TestApp;
  let databaseUrl: string;
  before(async () => {
    postgres = await startPostgresTestServer();
    databaseUrl = await postgres.createDatabase();
    app = await startTestApp({ env: { DATABASE_URL: databaseUrl } });
  });
  after(async () => {
    await app?.close();
    await postgres?.stop();
  });

  it("reports the connection pool's usage", async () => {
    const samples = await scrape(`${app.url}/metrics`);
    assert.equal(
      sampleValue(samples, 'db_pool_max_connections', { pool: 'main' }),
      10,
      "the postgres plugin's default poolSize",
    );
    const open = sampleValue(samples, 'db_pool_connections', { pool: 'main' })!;
    assert.ok(open >= 1 && open <= 10, `${open} connections open`);
    assert.ok(sampleValue(samples, 'db_pool_idle_connections', { pool: 'main' })! <= open);
    assert.equal(sampleValue(samples, 'db_pool_waiting_requests', { pool: 'main' }), 0);
  });

  it("serves a worker's metrics and health on VISUALIZER_METRICS_PORT, the queue read from the shared database", async () => {
    await enqueueProbes(app.container.cradle, 'metrics_worker_probe', 3, 1_000);
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-metrics-worker-'));
    const worker = spawn(bin, ['worker'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        VISUALIZER_DATA_DIR: dataDir,
        VISUALIZER_METRICS_PORT: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    worker.stdout.on('data', (chunk) => (stdout += chunk));
    worker.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
    try {
      await waitFor('the worker to serve its metrics', () => stdout.includes('Metrics: '), 60_000).catch((error) => {
        throw new Error(`${error.message}\nstdout: ${stdout}\nstderr: ${stderr}`);
      });
      assert.match(stdout, new RegExp(`Metrics: http://127\\.0\\.0\\.1:${port}/metrics`));
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const samples: Sample[] = await scrape(`http://127.0.0.1:${port}/metrics`);
      assert.equal(sampleValue(samples, 'job_queue_due', { kind: 'metrics_worker_probe' }), 3);
      assert.ok(sampleValue(samples, 'db_pool_connections', { pool: 'main' })! >= 1);
      assert.ok(sampleValue(samples, 'process_resident_memory_bytes')! > 0);
      assert.equal(samplesOf(samples, 'http_requests_total').length, 0, 'a worker answers no API requests');
      assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status, 404);
    } finally {
      worker.kill('SIGTERM');
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      assert.equal(code, 0, stderr);
    }
  });
});

describe('keep-alive behind a load balancer', () => {
  it('keeps idle connections 75 s by default, yet a stop closes each as soon as its answer is sent', {
    timeout: 120_000,
  }, async () => {
    // A stop that waited for idle connections would wait shutdownTimeoutMs: ten minutes here, past the test's timeout.
    const app = await startTestApp({ config: { shutdownTimeoutMs: 600_000 } });
    const key = (await app.tenants.createOrganization({ name: 'Keep-alive', credits: 10 })).apiKey.key;
    const agent = new Agent({ keepAlive: true });
    try {
      const first = await new Promise<IncomingMessage>((resolve, reject) =>
        get(`${app.url}/healthz`, { agent }, resolve).on('error', reject),
      );
      first.resume();
      assert.equal(first.headers['keep-alive'], 'timeout=75');

      // A request in flight when the stop begins: the server has its headers (it said 100 Continue), its body comes after.
      const body = JSON.stringify({ mode: 'virtual-try-on', image: 'not-a-url', products: [] });
      const headers = {
        ...bearer(key),
        'content-type': 'application/json',
        'content-length': String(body.length),
        expect: '100-continue',
      };
      const req = request(`${app.url}/v1/generations`, { method: 'POST', agent, headers });
      const answered = new Promise<IncomingMessage>((resolve, reject) =>
        req.on('response', resolve).on('error', reject),
      );
      await new Promise((resolve) => req.once('continue', resolve));
      const closing = app.close();
      req.end(body);
      const response = await answered;
      response.resume();
      assert.equal(response.statusCode, 400);
      await closing;
    } finally {
      agent.destroy();
    }
  });
});
