/**
 * Queue engines on one Postgres: the `db` queue against the `pgboss` queue, on the same throwaway
 * server (a database each), in this one process.
 *
 * - claims/s: `jobs` no-op jobs committed up front, then drained by 1 and by 8 workers. A worker
 *   is a queue instance on its own persistence handle (its own pool), working with concurrency 1,
 *   as separate worker processes would; the figure is jobs finished per second.
 * - enqueue-to-start latency: one idle worker; jobs committed one at a time, every 25 ms, through
 *   another handle (as an API process would, so only the engine itself can wake the worker), and
 *   timed from the start of the enqueuing transaction to the handler's start. Each engine's
 *   default poll interval (1 s); the worker has 8 slots.
 *
 * The ratio is pgboss/db (claims: > 1 means pg-boss is faster; latency: > 1 means slower).
 *
 *   node --import tsx bench/queue.ts      # BENCH_QUEUE_JOBS=1000 by default
 */
import { performance } from 'node:perf_hooks';
import type { JobQueue, Persistence } from '../kit/plugin.ts';
import { createDbQueue } from '../plugins/queue-db/db-queue.ts';
import { createPgBossQueue } from '../plugins/queue-pgboss/pgboss-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { testIds as ids } from '../kit/testing/ids.ts';
import { startPostgresTestServer } from '../test/support/postgres-server.ts';
import { fixed, percentile, runBenchmark, summaryRow, table, type SummaryRow } from './support/report.ts';

const jobs = Number(process.env.BENCH_QUEUE_JOBS ?? 1_000);
const latencySamples = 200;
const latencyGapMs = 25;
const kind = 'bench.noop';

const silent = { info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };

type Engine = { name: 'db' | 'pgboss'; make(persistence: Persistence): JobQueue };
const engines: Engine[] = [
  { name: 'db', make: (persistence) => createDbQueue({ persistence, clock, ids, logger: silent }, { leaseMs: 60_000, pollIntervalMs: 1_000, maxAttempts: 10 }) },
  {
    name: 'pgboss',
    make: (persistence) =>
      createPgBossQueue({ persistence, clock: { now: () => Date.now() }, logger: silent }, { schema: 'pgboss', leaseMs: 60_000, pollIntervalMs: 1_000, maxAttempts: 10, maintenanceIntervalSeconds: 30, keepFailedDays: 90 }),
  },
];

async function enqueueMany(persistence: Persistence, queue: JobQueue, count: number) {
  // In transactions of 100, as many requests' commits would add them.
  for (let done = 0; done < count; done += 100) {
    await persistence.transaction(async (tx) => {
      for (let n = done; n < Math.min(count, done + 100); n++) await queue.enqueue(tx, { kind, payload: { n }, runAt: Date.now(), createdAt: Date.now() });
    });
  }
}

/** Jobs finished per second by `workers` queue instances draining `count` committed jobs. */
async function claimRate(url: string, engine: Engine, workers: number, count: number): Promise<number> {
  const producerStore = openPostgres(url, { poolSize: 2 });
  const producer = engine.make(producerStore);
  const stores = Array.from({ length: workers }, () => openPostgres(url, { poolSize: 2 }));
  const queues = stores.map((store) => engine.make(store));
  try {
    await enqueueMany(producerStore, producer, count);
    let finished = 0;
    let allDone!: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const started = performance.now();
    await Promise.all(queues.map((queue) => queue.work({ [kind]: async () => void (++finished === count && allDone()) }, { concurrency: 1 })));
    queues.forEach((queue) => queue.notify());
    await done;
    const seconds = (performance.now() - started) / 1000;
    return count / seconds;
  } finally {
    await Promise.all([...queues, producer].map((queue) => queue.stop()));
    await Promise.all([...stores, producerStore].map((store) => store.close()));
  }
}

/** Enqueue-to-start latencies (ms) of jobs enqueued one at a time through another handle. */
async function startLatencies(url: string, engine: Engine): Promise<number[]> {
  const producerStore = openPostgres(url, { poolSize: 2 });
  const workerStore = openPostgres(url, { poolSize: 2 });
  const producer = engine.make(producerStore);
  const worker = engine.make(workerStore);
  const latencies: number[] = [];
  try {
    // Timed from the start of the enqueuing transaction (an insert and its commit): a NOTIFY can
    // start the handler before this process has seen its own commit resolve.
    await worker.work({ [kind]: async (job) => void latencies.push(performance.now() - (job.payload as { at: number }).at) }, { concurrency: 8 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let n = 0; n < latencySamples; n++) {
      const at = performance.now();
      await producerStore.transaction((tx) => producer.enqueue(tx, { kind, payload: { n, at }, runAt: Date.now(), createdAt: Date.now() }));
      await new Promise((resolve) => setTimeout(resolve, latencyGapMs));
    }
    while (latencies.length < latencySamples) await new Promise((resolve) => setTimeout(resolve, 50));
    return latencies.sort((a, b) => a - b);
  } finally {
    await Promise.all([worker.stop(), producer.stop()]);
    await Promise.all([producerStore.close(), workerStore.close()]);
  }
}

async function main(): Promise<SummaryRow[]> {
  const server = await startPostgresTestServer();
  try {
    const results = new Map<string, { one: number; eight: number; p50: number; p99: number }>();
    for (const engine of engines) {
      const url = await server.createDatabase();
      const setup = openPostgres(url);
      await setup.migrate();
      await setup.close();
      await claimRate(url, engine, 1, 200); // warm-up: JIT, pg-boss's schema and queue, the server's caches
      const one = await claimRate(url, engine, 1, jobs);
      const eight = await claimRate(url, engine, 8, jobs);
      const latencies = await startLatencies(url, engine);
      results.set(engine.name, { one, eight, p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
    }
    const db = results.get('db')!;
    const boss = results.get('pgboss')!;
    console.log(
      `queue: ${jobs} no-op jobs drained by 1 and by 8 workers (queue instances, each on its own pool, concurrency 1, in one process); ` +
        `${latencySamples} jobs committed ${latencyGapMs} ms apart through another handle for enqueue-to-start latency; one throwaway Postgres`,
    );
    console.log(
      table(
        ['engine', 'claims/s, 1 worker', 'claims/s, 8 workers', 'start p50 ms', 'start p99 ms'],
        [
          ['db (NOTIFY wake-ups, batch claims)', fixed(db.one, 0), fixed(db.eight, 0), fixed(db.p50, 1), fixed(db.p99, 1)],
          ['pgboss (pg-boss 10.4, polling)', fixed(boss.one, 0), fixed(boss.eight, 0), fixed(boss.p50, 1), fixed(boss.p99, 1)],
          ['ratio pgboss/db', fixed(boss.one / db.one, 2), fixed(boss.eight / db.eight, 2), fixed(boss.p50 / db.p50, 2), fixed(boss.p99 / db.p99, 2)],
        ],
      ),
    );
    return [
      summaryRow('queue claims/s, 1 worker (pgboss vs db)', fixed(boss.one, 0), fixed(db.one, 0), boss.one / db.one),
      summaryRow('queue claims/s, 8 workers (pgboss vs db)', fixed(boss.eight, 0), fixed(db.eight, 0), boss.eight / db.eight),
      summaryRow('queue start p99 ms (pgboss vs db)', fixed(boss.p99, 1), fixed(db.p99, 1), boss.p99 / db.p99),
    ];
  } finally {
    await server.stop();
  }
}

runBenchmark(main);
