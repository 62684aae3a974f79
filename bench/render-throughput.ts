/**
 * Render throughput across worker processes: 1, 2 and 4 `visualizer worker` processes (default
 * `workers.concurrency`) on one throwaway Postgres, the mock renderer with a simulated 2 s engine
 * latency, a fixed batch of 1K generations created through one `serve --api-only` process. Each
 * figure is jobs per second (the batch over the time from the first create to the last
 * `completedAt`) against the ideal: processes × concurrency / 2 s. All processes share one local
 * CDN data dir (one host).
 *
 *   node --import tsx bench/render-throughput.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, type ClusterProcess } from '../test/support/cluster.ts';
import { testCertificates } from '../test/support/https-server.ts';
import { startPostgresTestServer } from '../test/support/postgres-server.ts';
import { startBenchImageHost, unlimited } from './support/app.ts';
import { processCpuSeconds } from './support/process-cpu.ts';
import { fixed, runBenchmark, sized, summaryRow, table, type SummaryRow } from './support/report.ts';

const engineLatencyMs = sized(2_000, 200);
const concurrency = 4;
const batch = sized(64, 8);
const processCounts = sized([1, 2, 4], [1]);
const createConcurrency = 16;

runBenchmark(
  async () => {
    const { host } = await startBenchImageHost();
    const postgres = await startPostgresTestServer();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-render-bench-'));
    let cluster: Cluster | undefined;
    try {
      const config = path.join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({ rateLimits: unlimited, pluginOptions: { 'renderer-mock': { latencyMs: engineLatencyMs } } }),
      );
      cluster = new Cluster({
        DATABASE_URL: await postgres.createDatabase(),
        VISUALIZER_DATA_DIR: dir,
        VISUALIZER_CONFIG: config,
        VISUALIZER_OUTBOUND_ALLOW: 'localhost',
        NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
        VISUALIZER_WORKER_CONCURRENCY: String(concurrency),
        LOG_LEVEL: 'warn',
      });
      await cluster.run(['migrate']);
      const { apiKey } = JSON.parse(
        await cluster.run(['orgs', 'create', '--name', 'render-bench', '--credits', '1000000', '--json']),
      ) as { apiKey: string };
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const api = await cluster.api('api');
      const body = JSON.stringify({
        mode: 'virtual-try-on',
        image: `${host.url}/photo.jpg`,
        imageSize: '1K',
        products: [{ productId: 'sku-1', productTitle: 'Linen overshirt', imageUrl: `${host.url}/product.png` }],
      });

      const rows: Array<Array<string | number>> = [];
      const summary: SummaryRow[] = [];
      console.log(
        `render throughput: ${batch} 1K generations per run, mock renderer ${engineLatencyMs / 1000} s latency, workers.concurrency ${concurrency}, queue '${await queueName(cluster)}', one Postgres`,
      );
      for (const count of processCounts) {
        const workers: ClusterProcess[] = [];
        for (let i = 0; i < count; i++) workers.push(await cluster.worker(`worker-${count}-${i}`));
        const cpu = () => workers.reduce((total, worker) => total + (processCpuSeconds(worker.child.pid) ?? NaN), 0);
        const cpuBefore = cpu();
        const started = Date.now();
        const ids = await createBatch(api.url, headers, body);
        const generations = await settle(api.url, headers, ids);
        const workerCpu = cpu() - cpuBefore;
        for (const worker of workers) await worker.stop('SIGTERM');

        const failed = generations.filter((generation) => generation.status !== 'complete');
        if (failed.length)
          throw new Error(`${failed.length} generations did not complete: ${JSON.stringify(failed[0])}`);
        const first = Math.min(started, ...generations.map((generation) => Date.parse(generation.createdAt)));
        const last = Math.max(...generations.map((generation) => Date.parse(generation.completedAt!)));
        const seconds = (last - first) / 1000;
        const perSecond = batch / seconds;
        const ideal = (count * concurrency) / (engineLatencyMs / 1000);
        rows.push([
          count,
          count * concurrency,
          fixed(seconds, 1),
          fixed(perSecond, 2),
          fixed(ideal, 2),
          fixed(perSecond / ideal, 2),
          fixed((workerCpu * 1000) / batch, 0),
          fixed(workerCpu / seconds, 2),
          fixed(os.loadavg()[0]!, 1),
        ]);
        summary.push(
          summaryRow(
            `render throughput, ${count} worker process${count > 1 ? 'es' : ''} (jobs/s)`,
            fixed(perSecond, 2),
            fixed(ideal, 2),
            perSecond / ideal,
          ),
        );
      }
      console.log(
        table(
          [
            'processes',
            'renders at once',
            'seconds',
            'jobs/s',
            'ideal jobs/s',
            'ratio',
            'worker CPU ms/job',
            'worker cores',
            'load avg',
          ],
          rows,
        ),
      );
      console.log(
        `ideal = processes × ${concurrency} / ${engineLatencyMs / 1000} s; seconds = first create to last completedAt of the batch;`,
      );
      console.log(
        `worker CPU = the worker processes' CPU over the batch (/proc), per job and in cores busy on average, of ${os.availableParallelism()} cores`,
      );
      return summary;
    } finally {
      await cluster?.stopAll();
      await postgres.stop();
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { boundSeconds: sized(420, 120) },
);

/** The queue plugin the processes use, as `config` resolves it (printed with the table, since the queue decides how fast idle workers wake). */
async function queueName(cluster: Cluster): Promise<string> {
  const { loadConfig } = await import('../config/load.ts');
  return loadConfig({ ...process.env, ...cluster.env } as Record<string, string>).plugins.queue;
}

async function createBatch(url: string, headers: Record<string, string>, body: string): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: createConcurrency }, async () => {
      while (next < batch) {
        next += 1;
        const response = await fetch(`${url}/v1/generations`, { method: 'POST', headers, body });
        if (response.status !== 202) throw new Error(`create answered ${response.status}: ${await response.text()}`);
        ids.push(((await response.json()) as { id: string }).id);
      }
    }),
  );
  return ids;
}

interface Generation {
  id: string;
  status: string;
  createdAt: string;
  completedAt: string | null;
}

/** Polls until none of `ids` is processing (3 minutes at most), then returns them all. */
async function settle(url: string, headers: Record<string, string>, ids: string[]): Promise<Generation[]> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const page = (await (await fetch(`${url}/v1/generations?status=processing&limit=1`, { headers })).json()) as {
      data: unknown[];
    };
    if (page.data.length === 0) break;
    if (Date.now() > deadline) throw new Error('the batch did not finish in 3 minutes');
    await sleep(200);
  }
  return Promise.all(
    ids.map(async (id) => (await (await fetch(`${url}/v1/generations/${id}`, { headers })).json()) as Generation),
  );
}
