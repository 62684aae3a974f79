/**
 * What a SIGKILLed worker's webhook slots cost the deliveries waiting behind them: one
 * `serve --api-only` and two `worker` processes on a throwaway Postgres, the limits shared in
 * Postgres (or Redis), and a loopback HTTPS receiver with a small per-endpoint cap. The first
 * worker alone renders N generations; the receiver holds its first `limit` deliveries unanswered,
 * so that worker holds every slot of the endpoint and the other deliveries wait. Then the second
 * worker starts, the first is SIGKILLed, and the receiver answers every request after `--slow` ms.
 * Prints the surviving worker's postponed delivery runs (`job_runs_total`, kind
 * `deliver_webhook`, outcome `postponed`) from the kill until every delivery was answered, and
 * that time.
 *
 *   node --import tsx bench/tools/worker-kill-settle.ts
 *   node --import tsx bench/tools/worker-kill-settle.ts --generations 40 --limit 2 --slow 2000 --limits redis
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { freePort } from '../../core/http/free-port.ts';
import { Cluster, type ClusterProcess } from '../../test/support/cluster.ts';
import { startHttpsServer, testCertificates } from '../../test/support/https-server.ts';
import { startPostgresTestServer } from '../../test/support/postgres-server.ts';
import { parsePrometheus, sampleValue } from '../../test/support/prometheus.ts';
import { startRedisServer, type RedisTestServer } from '../../test/support/redis-server.ts';
import { createBodyFor, startBenchImageHost, unlimited } from '../support/app.ts';

const { values } = parseArgs({
  options: {
    generations: { type: 'string', default: '24' },
    limit: { type: 'string', default: '2' },
    slow: { type: 'string', default: '2000' },
    limits: { type: 'string', default: 'postgres' },
  },
});
const generations = Number(values.generations);
const limit = Number(values.limit);
const slowMs = Number(values.slow);
if (!(generations > limit && limit > 0 && slowMs >= 0) || !['postgres', 'redis'].includes(values.limits)) {
  console.error('usage: worker-kill-settle.ts [--generations N] [--limit L < N] [--slow MS] [--limits postgres|redis]');
  process.exit(2);
}

/** No phase of a run should take this long; past it the run is reported stuck rather than waited for. */
const stuckAfterMs = 300_000;
async function until(what: string, done: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + stuckAfterMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`stuck: ${what}`);
    await sleep(100);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-kill-settle-'));
const postgres = await startPostgresTestServer();
let redis: RedisTestServer | undefined;
const { host: images } = await startBenchImageHost();
let killed = false;
/** Requests the receiver holds unanswered until the kill, so the first worker keeps its slots. */
let held = 0;
/** Event ids answered 2xx. */
const delivered = new Set<string>();
const receiver = await startHttpsServer(async (request, response) => {
  if (!killed && held < limit) {
    held += 1;
    return;
  }
  await sleep(slowMs);
  delivered.add(String(request.headers['webhook-id']));
  response.writeHead(204).end();
});
let cluster: Cluster | undefined;
try {
  if (values.limits === 'redis') redis = await startRedisServer();
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      plugins: { cdn: 'local' },
      rateLimits: unlimited,
      webhooks: { maxConcurrentPerEndpoint: limit, timeoutMs: 120_000 },
      pluginOptions: {
        'renderer-mock': { latencyMs: 50 },
        // The killed worker's running jobs return to the queue soon: the slots are what is measured.
        'queue-db': { leaseMs: 2_000, pollIntervalMs: 200 },
      },
    }),
  );
  cluster = new Cluster({
    DATABASE_URL: await postgres.createDatabase(),
    VISUALIZER_CONFIG: config,
    VISUALIZER_DATA_DIR: path.join(dir, 'data'),
    VISUALIZER_OUTBOUND_ALLOW: `127.0.0.1:${receiver.port},127.0.0.1:${images.port}`,
    NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
    VISUALIZER_LIMITS: values.limits,
    ...(redis ? { REDIS_URL: redis.url } : {}),
    LOG_LEVEL: 'error',
  });
  await cluster.run(['migrate']);
  const org = JSON.parse(
    await cluster.run(['orgs', 'create', '--name', 'settle', '--credits', '1000000', '--json']),
  ) as { apiKey: string };
  const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };
  const api = await cluster.api('api');
  const endpoint = await fetch(`${api.url}/v1/webhook-endpoints`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `https://127.0.0.1:${receiver.port}/hook`, enabledEvents: ['generation.completed'] }),
  });
  if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${await endpoint.text()}`);

  const doomed = await cluster.worker('worker-0');
  for (let n = 0; n < generations; n++) {
    const created = await fetch(`${api.url}/v1/generations`, {
      method: 'POST',
      headers,
      body: createBodyFor(`https://127.0.0.1:${images.port}`),
    });
    if (created.status !== 202) throw new Error(`create: ${created.status} ${await created.text()}`);
  }
  await until('renders and the held deliveries', async () => {
    if (held < limit) return false;
    const processing = (await (
      await fetch(`${api.url}/v1/generations?status=processing&limit=1`, { headers })
    ).json()) as { data: unknown[] };
    return processing.data.length === 0;
  });

  const metricsPort = await freePort();
  const survivor: ClusterProcess = await cluster.worker('worker-1', { VISUALIZER_METRICS_PORT: String(metricsPort) });
  // The metrics server starts after the ready line.
  await until('the survivor serves its metrics', () => survivor.output().includes('Metrics:'));
  const postponed = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return sampleValue(parsePrometheus(text), 'job_runs_total', { kind: 'deliver_webhook', outcome: 'postponed' }) ?? 0;
  };
  const postponedBefore = await postponed();
  const killedAt = performance.now();
  killed = true;
  await doomed.stop('SIGKILL');
  await until('every delivery answered', () => delivered.size === generations);
  const seconds = (performance.now() - killedAt) / 1000;
  const count = (await postponed()) - postponedBefore;
  console.log(
    `worker-kill-settle (${values.limits} limits): ${generations} deliveries, ${limit} slots, receiver ${slowMs} ms; ` +
      `every delivery answered ${seconds.toFixed(1)} s after the kill (at best ${((Math.ceil(generations / limit) * slowMs) / 1000).toFixed(1)} s); ` +
      `the survivor postponed ${count} delivery runs meanwhile, ${(count / (generations - limit)).toFixed(1)} per waiting delivery`,
  );
  await survivor.stop('SIGTERM');
  await api.stop('SIGTERM');
} finally {
  await cluster?.stopAll();
  await receiver.close();
  await images.close();
  await redis?.stop();
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
