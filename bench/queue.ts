/**
 * Queue engines on one Postgres: the `db` queue against the `pgboss` queue, on the same throwaway
 * server (a database each), in this one process. pgboss runs three ways: with its wake-ups (the
 * default: a NOTIFY in the enqueuing transaction, workers LISTEN), and without them
 * (`wakeOtherProcesses: false`, as before) at the default 1 s poll and at a 100 ms poll.
 *
 * - claims/s: `jobs` no-op jobs committed up front, then drained by 1 and by 8 workers. A worker
 *   is a queue instance on its own persistence handle (its own pool), working with concurrency 1,
 *   as separate worker processes would; the figure is jobs finished per second, the median of
 *   `claimRounds` rounds that alternate between the variants.
 * - enqueue-to-start latency, timed from the start of the enqueuing transaction to the handler's
 *   start, jobs committed one at a time `latencyGapMs` apart:
 *   - same process (`serve`): the worker's own handle enqueues and calls `notify()` after the
 *     commit, as the services do; one queue instance with 8 slots.
 *   - other process (API processes and workers apart): another handle enqueues and nobody calls
 *     `notify()`, so only the engine itself can wake the `latencyWorkers` idle workers.
 * - database load: the CPU of the Postgres backends serving the database (from /proc) per job of
 *   the other-process run (the producer's transactions, the wake-ups' and polls' fetches, the
 *   claims), and per second while those workers then sit idle (their polls).
 *
 * The ratios are pgboss/db (claims: > 1 means pg-boss is faster; latency: > 1 means slower).
 *
 *   node --import tsx bench/queue.ts      # BENCH_QUEUE_JOBS=1000 by default
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { JobQueue, Persistence } from '../kit/plugin.ts';
import { createDbQueue } from '../plugins/queue-db/db-queue.ts';
import { createPgBossQueue } from '../plugins/queue-pgboss/pgboss-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { testIds as ids } from '../kit/testing/ids.ts';
import { startPostgresTestServer } from '../test/support/postgres-server.ts';
import {
  fixed,
  median,
  percentile,
  runBenchmark,
  sized,
  summaryRow,
  table,
  type SummaryRow,
} from './support/report.ts';

const jobs = sized(Number(process.env.BENCH_QUEUE_JOBS ?? 1_000), 50);
const claimRounds = sized(3, 1);
const latencySamples = sized(200, 20);
const latencyGapMs = 25;
const latencyWorkers = 4;
const idleSeconds = sized(5, 1);
const kind = 'bench.noop';

const silent = { info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };

interface Variant {
  name: string;
  make(persistence: Persistence): JobQueue;
}
const pgboss = (pollIntervalMs: number, wakeOtherProcesses: boolean) => (persistence: Persistence) =>
  createPgBossQueue(
    { persistence, clock, logger: silent },
    {
      schema: 'pgboss',
      leaseMs: 60_000,
      pollIntervalMs,
      maxAttempts: 10,
      maintenanceIntervalSeconds: 30,
      keepFailedDays: 90,
      wakeOtherProcesses,
    },
  );
const db: Variant = {
  name: 'db (NOTIFY wake-ups, 1 s poll)',
  make: (persistence) =>
    createDbQueue(
      { persistence, clock, ids, logger: silent },
      { leaseMs: 60_000, pollIntervalMs: 1_000, maxAttempts: 10 },
    ),
};
const bossPolling: Variant = { name: 'pgboss, polling only, 1 s poll (before)', make: pgboss(1_000, false) };
const bossFastPolling: Variant = { name: 'pgboss, polling only, 100 ms poll', make: pgboss(100, false) };
const bossWoken: Variant = { name: 'pgboss (NOTIFY wake-ups, 1 s poll)', make: pgboss(1_000, true) };
const variants = [db, bossPolling, bossFastPolling, bossWoken];

/**
 * The CPU time (ms) each backend serving the bench's database has used so far, by pid: what the
 * queue's own sessions cost the server, without its background processes (autovacuum, the
 * checkpointer), whose work would drown a figure this small. Read from /proc, so undefined for a
 * server on another host (DATABASE_URL).
 */
async function backendCpu(observer: pg.Client): Promise<Map<number, number> | undefined> {
  const { rows } = await observer.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows as { pid: number }[]) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10); // utime + stime, in ticks of 10 ms (USER_HZ 100)
    } catch {
      // A backend that ended meanwhile, or none of this host's.
    }
  }
  // The observer's own backend is always listed: none readable means the server is elsewhere.
  return cpu.size > 0 ? cpu : undefined;
}

/** CPU ms the backends alive at `to` used since `from` (one that connected in between, all of its time). */
function cpuBetween(from: Map<number, number> | undefined, to: Map<number, number> | undefined): number {
  if (!from || !to) return NaN;
  let ms = 0;
  for (const [pid, used] of to) ms += used - (from.get(pid) ?? 0);
  return ms;
}

async function enqueueMany(persistence: Persistence, queue: JobQueue, count: number) {
  // In transactions of 100, as many requests' commits would add them.
  for (let done = 0; done < count; done += 100) {
    await persistence.transaction(async (tx) => {
      for (let n = done; n < Math.min(count, done + 100); n++)
        await queue.enqueue(tx, { kind, payload: { n }, runAt: Date.now(), createdAt: Date.now() });
    });
  }
}

/** Jobs finished per second by `workers` queue instances draining `count` committed jobs. */
async function claimRate(url: string, variant: Variant, workers: number, count: number): Promise<number> {
  const producerStore = openPostgres(url, { poolSize: 2 });
  const producer = variant.make(producerStore);
  const stores = Array.from({ length: workers }, () => openPostgres(url, { poolSize: 2 }));
  const queues = stores.map((store) => variant.make(store));
  try {
    await enqueueMany(producerStore, producer, count);
    let finished = 0;
    let allDone!: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const started = performance.now();
    await Promise.all(
      queues.map((queue) =>
        queue.work({ [kind]: async () => void (++finished === count && allDone()) }, { concurrency: 1 }),
      ),
    );
    for (const queue of queues) queue.notify();
    await done;
    const seconds = (performance.now() - started) / 1000;
    return count / seconds;
  } finally {
    await Promise.all([...queues, producer].map((queue) => queue.stop()));
    await Promise.all([...stores, producerStore].map((store) => store.close()));
  }
}

interface Latencies {
  p50: number;
  p99: number;
}

/**
 * Once the workers are idle (`ready`), commits `latencySamples` jobs one at a time through
 * `producer`'s handle (calling `committed` after each) and returns the enqueue-to-start latencies.
 */
async function timeStarts(
  workers: JobQueue[],
  concurrency: number,
  producer: { store: Persistence; queue: JobQueue },
  { ready = () => {}, committed = () => {} }: { ready?: () => unknown; committed?: () => void },
): Promise<Latencies> {
  const latencies: number[] = [];
  // Timed from the start of the enqueuing transaction (an insert and its commit): a NOTIFY can
  // start the handler before this process has seen its own commit resolve.
  const handler = async (job: { payload: unknown }) =>
    void latencies.push(performance.now() - (job.payload as { at: number }).at);
  await Promise.all(workers.map((worker) => worker.work({ [kind]: handler }, { concurrency })));
  await sleep(500); // every worker's first (empty) claim is over: they are idle
  await ready();
  for (let n = 0; n < latencySamples; n++) {
    const at = performance.now();
    await producer.store.transaction((tx) =>
      producer.queue.enqueue(tx, { kind, payload: { n, at }, runAt: Date.now(), createdAt: Date.now() }),
    );
    committed();
    await sleep(latencyGapMs);
  }
  while (latencies.length < latencySamples) await sleep(50);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** `serve`: one queue instance enqueues on its own handle, calls `notify()` after each commit, and works. */
async function sameProcess(url: string, variant: Variant): Promise<Latencies> {
  const store = openPostgres(url, { poolSize: 4 });
  const queue = variant.make(store);
  try {
    return await timeStarts([queue], 8, { store, queue }, { committed: () => queue.notify() });
  } finally {
    await queue.stop();
    await store.close();
  }
}

/**
 * API processes and workers apart: another handle enqueues (a queue instance that never works) and
 * nobody calls `notify()`; `latencyWorkers` idle workers of 2 slots each. Also the server's CPU per
 * job over that run, and per second while the workers then sit idle.
 */
async function otherProcess(
  url: string,
  variant: Variant,
): Promise<Latencies & { cpuPerJob: number; idleCpuPerSecond: number }> {
  const producerStore = openPostgres(url, { poolSize: 2 });
  const producer = variant.make(producerStore);
  const stores = Array.from({ length: latencyWorkers }, () => openPostgres(url, { poolSize: 2 }));
  const workers = stores.map((store) => variant.make(store));
  const observer = new pg.Client({ connectionString: url });
  await observer.connect();
  try {
    let start: Map<number, number> | undefined;
    // Counted from when the workers are idle: their setup is no job's cost.
    const latencies = await timeStarts(
      workers,
      2,
      { store: producerStore, queue: producer },
      { ready: async () => (start = await backendCpu(observer)) },
    );
    const busy = await backendCpu(observer);
    await sleep(idleSeconds * 1000);
    const idle = await backendCpu(observer);
    return {
      ...latencies,
      cpuPerJob: cpuBetween(start, busy) / latencySamples,
      idleCpuPerSecond: cpuBetween(busy, idle) / idleSeconds,
    };
  } finally {
    await observer.end();
    await Promise.all([...workers, producer].map((queue) => queue.stop()));
    await Promise.all([...stores, producerStore].map((store) => store.close()));
  }
}

interface Result {
  one: number;
  eight: number;
  same: Latencies;
  other: Latencies & { cpuPerJob: number; idleCpuPerSecond: number };
}

async function main(): Promise<SummaryRow[]> {
  const server = await startPostgresTestServer();
  try {
    const urls = new Map<Variant, string>();
    for (const variant of variants) {
      const url = await server.createDatabase();
      const setup = openPostgres(url);
      await setup.migrate();
      await setup.close();
      await claimRate(url, variant, 1, sized(200, 20)); // warm-up: JIT, pg-boss's schema and queue, the server's caches
      urls.set(variant, url);
    }
    // Claim rounds alternate between the variants, so drift on a shared host hits each alike.
    const rates = new Map(variants.map((variant) => [variant, { one: [] as number[], eight: [] as number[] }]));
    for (let round = 0; round < claimRounds; round++) {
      for (const variant of variants) {
        rates.get(variant)!.one.push(await claimRate(urls.get(variant)!, variant, 1, jobs));
        rates.get(variant)!.eight.push(await claimRate(urls.get(variant)!, variant, 8, jobs));
      }
    }
    const results = new Map<Variant, Result>();
    for (const variant of variants) {
      const url = urls.get(variant)!;
      const same = await sameProcess(url, variant);
      const other = await otherProcess(url, variant);
      results.set(variant, {
        one: median(rates.get(variant)!.one),
        eight: median(rates.get(variant)!.eight),
        same,
        other,
      });
    }
    const base = results.get(db)!;
    const before = results.get(bossPolling)!;
    const after = results.get(bossWoken)!;
    console.log(
      `queue: ${jobs} no-op jobs drained by 1 and by 8 workers (queue instances, each on its own pool, concurrency 1, in one process; median of ${claimRounds} alternating rounds); ` +
        `${latencySamples} jobs committed ${latencyGapMs} ms apart for enqueue-to-start latency, through the worker's own handle with notify() (same process) ` +
        `and through another handle to ${latencyWorkers} idle workers (other process); one throwaway Postgres`,
    );
    const rows = [...results].map(([variant, r]) => [
      variant.name,
      fixed(r.one, 0),
      fixed(r.eight, 0),
      fixed(r.same.p50, 1),
      fixed(r.same.p99, 1),
      fixed(r.other.p50, 1),
      fixed(r.other.p99, 1),
      fixed(r.other.cpuPerJob, 2),
      fixed(r.other.idleCpuPerSecond, 1),
    ]);
    // A quotient of nothing (no idle CPU measured, at 10 ms resolution) is left blank.
    const ratio = (ours: number, floor: number) => (Number.isFinite(ours / floor) ? fixed(ours / floor, 2) : '-');
    rows.push([
      'ratio pgboss/db',
      ratio(after.one, base.one),
      ratio(after.eight, base.eight),
      ratio(after.same.p50, base.same.p50),
      ratio(after.same.p99, base.same.p99),
      ratio(after.other.p50, base.other.p50),
      ratio(after.other.p99, base.other.p99),
      ratio(after.other.cpuPerJob, base.other.cpuPerJob),
      ratio(after.other.idleCpuPerSecond, base.other.idleCpuPerSecond),
    ]);
    console.log(
      table(
        [
          'engine',
          'claims/s, 1 worker',
          'claims/s, 8 workers',
          'same p50 ms',
          'same p99 ms',
          'other p50 ms',
          'other p99 ms',
          'db CPU ms/job',
          'idle db CPU ms/s',
        ],
        rows,
      ),
    );
    return [
      summaryRow(
        'queue claims/s, 1 worker (pgboss vs db)',
        fixed(after.one, 0),
        fixed(base.one, 0),
        after.one / base.one,
      ),
      summaryRow(
        'queue claims/s, 8 workers (pgboss vs db)',
        fixed(after.eight, 0),
        fixed(base.eight, 0),
        after.eight / base.eight,
      ),
      summaryRow(
        'queue start p99 ms, same process (pgboss vs db)',
        fixed(after.same.p99, 1),
        fixed(base.same.p99, 1),
        after.same.p99 / base.same.p99,
      ),
      summaryRow(
        'queue start p99 ms, other process (pgboss vs db)',
        fixed(after.other.p99, 1),
        fixed(base.other.p99, 1),
        after.other.p99 / base.other.p99,
      ),
      summaryRow(
        'pgboss start p99 ms, other process (wake-ups vs polling)',
        fixed(after.other.p99, 1),
        fixed(before.other.p99, 1),
        after.other.p99 / before.other.p99,
      ),
    ];
  } finally {
    await server.stop();
  }
}

runBenchmark(main, { boundSeconds: sized(600, 60) });
