/**
 * Idle memory of `visualizer serve` (SQLite, local CDN, mock renderer, API + workers + scheduler
 * and the app modules, as `npm start` runs it): started on a fresh data dir and a free loopback
 * port, its resident set 10 s after `/healthz` first answers, from /proc/<pid>/status. The floor,
 * measured the same way in the same run: support/idle-floor.ts (node with tsx registered, bare h3
 * on node:http answering `/healthz` from an open better-sqlite3 database). Floor and serve take
 * turns, a fresh data dir each; the figures are the medians of the rounds.
 *
 *   node --import tsx bench/idle-rss.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Cluster, type ClusterProcess } from '../test/support/cluster.ts';
import { waitFor } from '../test/support/wait-for.ts';
import { fixed, median, runBenchmark, sized, summaryRow, table } from './support/report.ts';

const rounds = sized(3, 1);
const idleMs = sized(10_000, 1_000);
const targetMb = 120;
const floorFile = fileURLToPath(new URL('./support/idle-floor.ts', import.meta.url));
const ready = /listening on (http:\S+)/;

/** The memory lines of /proc/<pid>/status, in MB (Threads as a count). */
interface ProcessMemory {
  VmRSS: number;
  VmHWM: number;
  RssAnon: number;
  RssFile: number;
  RssShmem: number;
  Threads: number;
}

function readStatus(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: keyof ProcessMemory) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${name}`);
    return name === 'Threads' ? Number(match[1]) : Number(match[1]) / 1024;
  };
  return {
    VmRSS: field('VmRSS'),
    VmHWM: field('VmHWM'),
    RssAnon: field('RssAnon'),
    RssFile: field('RssFile'),
    RssShmem: field('RssShmem'),
    Threads: field('Threads'),
  };
}

/** V8's heap and the memory it tracks outside it, from prom-client's default metrics on `/metrics`, in MB. */
async function heapFigures(url: string): Promise<{ heapUsed: number; heapTotal: number; external: number } | null> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) return null;
  const text = await response.text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return {
    heapUsed: gauge('nodejs_heap_size_used_bytes'),
    heapTotal: gauge('nodejs_heap_size_total_bytes'),
    external: gauge('nodejs_external_memory_bytes'),
  };
}

/** Starts a process through `cluster`, waits for `/healthz`, then `idleMs`, and reads its memory; stops it. */
async function measure(
  cluster: Cluster,
  name: string,
  args: string[],
): Promise<{ memory: ProcessMemory; heap: Awaited<ReturnType<typeof heapFigures>> }> {
  const started: ClusterProcess = await cluster.start(name, args, ready, { PORT: '0' });
  const url = started.match[1]!;
  try {
    await waitFor(
      `${name} /healthz`,
      async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true,
      60_000,
    );
    await sleep(idleMs);
    const memory = readStatus(started.child.pid!);
    // After the reading: the first scrape starts prom-client's default collectors, which cost memory of their own.
    const heap = name === 'serve' ? await heapFigures(url) : null;
    return { memory, heap };
  } finally {
    await started.stop();
  }
}

runBenchmark(
  async () => {
    const floors: ProcessMemory[] = [];
    const ours: ProcessMemory[] = [];
    const heaps: Array<NonNullable<Awaited<ReturnType<typeof heapFigures>>>> = [];
    const rows: Array<Array<string | number>> = [];
    const mb = (value: number) => fixed(value, 1);
    console.log(
      `idle RSS: ${rounds} round(s), each process read ${idleMs / 1000} s after /healthz first answered, fresh data dir each`,
    );
    for (let round = 1; round <= rounds; round++) {
      for (const side of ['floor', 'serve'] as const) {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-idle-rss-'));
        // One process at a time: nothing else of ours on the machine while one is measured.
        const cluster =
          side === 'floor'
            ? new Cluster({ VISUALIZER_DATA_DIR: dir }, process.execPath)
            : new Cluster({ VISUALIZER_DATA_DIR: dir, HOST: '127.0.0.1' });
        try {
          const { memory, heap } = await measure(
            cluster,
            side,
            side === 'floor' ? ['--import', 'tsx', floorFile] : ['serve'],
          );
          (side === 'floor' ? floors : ours).push(memory);
          if (heap) heaps.push(heap);
          rows.push([
            round,
            side,
            mb(memory.VmRSS),
            mb(memory.VmHWM),
            mb(memory.RssAnon),
            mb(memory.RssFile),
            memory.Threads,
            heap ? mb(heap.heapUsed) : '-',
            heap ? mb(heap.heapTotal) : '-',
            heap ? mb(heap.external) : '-',
          ]);
        } finally {
          await cluster.stopAll();
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    console.log(
      table(
        [
          'round',
          'process',
          'RSS MB',
          'peak MB',
          'anon MB',
          'file MB',
          'threads',
          'V8 used MB',
          'V8 total MB',
          'external MB',
        ],
        rows,
      ),
    );

    const oursRss = median(ours.map((memory) => memory.VmRSS));
    const floorRss = median(floors.map((memory) => memory.VmRSS));
    const ratio = oursRss / floorRss;
    console.log(
      `median RSS: serve ${mb(oursRss)} MB (anon ${mb(median(ours.map((m) => m.RssAnon)))}, file ${mb(median(ours.map((m) => m.RssFile)))}), ` +
        `floor ${mb(floorRss)} MB (anon ${mb(median(floors.map((m) => m.RssAnon)))}, file ${mb(median(floors.map((m) => m.RssFile)))}); ` +
        `serve/floor ${fixed(ratio, 2)}; serve − floor ${mb(oursRss - floorRss)} MB; target serve <= ${targetMb} MB`,
    );
    if (heaps.length)
      console.log(
        `serve's V8 heap (median): used ${mb(median(heaps.map((h) => h.heapUsed)))} MB of ${mb(median(heaps.map((h) => h.heapTotal)))} MB, external ${mb(median(heaps.map((h) => h.external)))} MB`,
      );
    return [
      summaryRow(
        `idle-rss: serve RSS ${idleMs / 1000} s after /healthz`,
        `${mb(oursRss)} MB`,
        `${mb(floorRss)} MB`,
        ratio,
        { atMostValue: { value: oursRss, limit: targetMb, unit: 'MB' } },
      ),
    ];
  },
  { boundSeconds: sized(300, 50) },
);
