/**
 * Where the server's CPU goes, seen by the kernel: runs the get or create load (as bench/get.ts and
 * bench/create.ts do, from a separate client process) against the floor and against our app, samples
 * this process with `perf record -g` over each measured window, and prints CPU per request by where
 * it was spent. The V8 profiler cannot say this: it charges a native call's time (SQLite, the
 * objects V8's C++ API builds for its rows, a garbage collection inside it) to the JS that made
 * the call, and sees nothing of the kernel. perf sees both.
 *
 *   node --import tsx bench/tools/perf-profile.ts get
 *   node --import tsx bench/tools/perf-profile.ts create
 *
 * Needs `perf` (Debian: linux-perf) and permission to sample this process (root, or
 * kernel.perf_event_paranoid ≤ 2). A sample goes to the first bucket found walking its stack from
 * the leaf up; "JS and HTTP" is everything else: h3, srvx, node:http, our handlers, promises.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBareH3 } from '../support/bare-h3.ts';
import { startBenchApp } from '../support/app.ts';
import { createLoad, readLoad } from '../support/api-loads.ts';
import { runLoad, type LoadRequest } from '../support/load.ts';
import { fixed, table } from '../support/report.ts';

const mode = process.argv[2];
if (mode !== 'create' && mode !== 'get') {
  console.error('usage: perf-profile.ts get|create');
  process.exit(2);
}
if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('perf-profile: `perf` is not installed (Debian: apt-get install linux-perf)');
  process.exit(2);
}

const frequency = 2000;
const warmupMs = 2_000;
const durationMs = 4_000;

/** Native frames that mark where a sample's time went; the first one found from the leaf up wins. */
const buckets: Array<[bucket: string, frames: string[]]> = [
  ['SQLite reads', ['Statement::JS_all', 'Statement::JS_get', 'Statement::JS_iterate']],
  ['SQLite writes, commits', ['Statement::JS_run', 'Database::JS_exec']],
  ['socket writes (writev)', ['StreamBase::Writev', 'StreamBase::WriteBuffer', 'StreamBase::WriteString']],
  ['garbage collection', ['Scavenge', 'MarkCompact', 'ConcurrentMarking', 'Heap::CollectGarbage']],
  ['JSON parse, stringify', ['JsonParse', 'JsonStringify']],
  ['hashing', ['node::crypto::']],
  ['waiting for events (epoll)', ['epoll_wait', 'epoll_pwait']],
];
const rest = 'JS and HTTP (h3, srvx, node:http, handlers)';

function bucketOf(stack: string): string {
  let first: { at: number; bucket: string } | undefined;
  for (const [bucket, frames] of buckets) {
    for (const frame of frames) {
      const at = stack.indexOf(frame);
      if (at !== -1 && (!first || at < first.at)) first = { at, bucket };
    }
  }
  return first?.bucket ?? rest;
}

/** Samples per bucket from `perf script` output: one block per sample, leaf frame first. */
function bucketSamples(file: string): Map<string, number> {
  const script = spawnSync('perf', ['script', '-i', file], { maxBuffer: 1 << 30, encoding: 'utf8' });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
  const counts = new Map<string, number>();
  for (const sample of script.stdout.split('\n\n')) {
    const newline = sample.indexOf('\n');
    if (newline === -1) continue;
    const bucket = bucketOf(sample.slice(newline));
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  return counts;
}

/** Runs the load and samples this process with perf over the measured window only. */
async function profile(origin: string, requests: LoadRequest[], file: string) {
  let recording: Promise<number | null> | undefined;
  const timer = setTimeout(() => {
    const perf = spawn(
      'perf',
      [
        'record',
        '-q',
        '-e',
        'cpu-clock',
        '-F',
        String(frequency),
        '-g',
        '-p',
        String(process.pid),
        '-o',
        file,
        '--',
        'sleep',
        String(durationMs / 1000),
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    recording = new Promise((resolve) => perf.once('exit', resolve));
  }, warmupMs);
  const result = await runLoad({ origin, requests, concurrency: 16, warmupMs, durationMs });
  clearTimeout(timer);
  if ((await recording) !== 0) throw new Error('perf record failed');
  const responses = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  return { result, responses, counts: bucketSamples(file) };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'perf-profile-'));
const bench = await startBenchApp();
let floor: Awaited<ReturnType<typeof startBareH3>> | undefined;
try {
  const { requests, floorRoutes } = mode === 'create' ? await createLoad(bench) : await readLoad(bench);
  floor = await startBareH3(floorRoutes);

  const sides = [
    { label: 'floor', ...(await profile(floor.url, requests, path.join(dir, 'floor.data'))) },
    { label: 'ours', ...(await profile(bench.app.url, requests, path.join(dir, 'ours.data'))) },
  ];
  const perRequest = (samples: number, responses: number) => (samples / frequency / responses) * 1e6;
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${mode}: server CPU per request by where it went (perf, ${frequency} Hz, ${durationMs / 1000} s measured each)`,
  );
  console.log(
    table(
      ['', ...sides.map((side) => `${side.label} µs/req`)],
      [
        ['requests/s', ...sides.map((side) => fixed(side.result.perSecond, 0))],
        [
          'cores used (sampled)',
          ...sides.map((side) => fixed(total(side.counts) / frequency / (durationMs / 1000), 2)),
        ],
        ...[...buckets.map(([bucket]) => bucket), rest].map((bucket) => [
          bucket,
          ...sides.map((side) => fixed(perRequest(side.counts.get(bucket) ?? 0, side.responses), 1)),
        ]),
        ['total', ...sides.map((side) => fixed(perRequest(total(side.counts), side.responses), 1))],
      ],
    ),
  );
} finally {
  await floor?.close();
  await bench.close();
  rmSync(dir, { recursive: true, force: true });
}
