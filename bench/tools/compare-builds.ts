/**
 * Two or more builds of the service under the create or get load, in one process: each build's
 * bench app (own temp data dir, own SQLite file) is loaded in turn for short slices, the order
 * reversed every slice, so load from other processes drifts over all of them alike. On a shared
 * machine that separates differences of a few percent, which separate benchmark runs (whose
 * ratios move by ±20 % between runs) cannot.
 *
 *   git archive HEAD | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
 *   node --import tsx bench/tools/compare-builds.ts get 16 /tmp/before .
 *
 * Arguments: `create` or `get`, the number of slices (2 s each, after 0.3 s of warm-up), then the
 * builds' directories, the first being the base. Prints each build's median req/s and server CPU
 * per request, and the median over slices of its rate against the base's in the same slice.
 */
import path from 'node:path';
import { runLoad } from '../support/load.ts';

const [mode, slicesArgument, ...builds] = process.argv.slice(2);
const slices = Number(slicesArgument);
if ((mode !== 'create' && mode !== 'get') || !(slices > 0) || builds.length < 2) {
  console.error('usage: compare-builds.ts create|get SLICES BASE_DIR OTHER_DIR...');
  process.exit(2);
}

interface Build {
  dir: string;
  bench: { app: { url: string }; close(): Promise<void> };
  requests: Parameters<typeof runLoad>[0]['requests'];
  rates: number[];
  cpu: number[];
}

const started: Build[] = [];
try {
  for (const dir of builds.map((build) => path.resolve(build))) {
    const { startBenchApp } = await import(path.join(dir, 'bench/support/app.ts'));
    const { createLoad, readLoad } = await import(path.join(dir, 'bench/support/api-loads.ts'));
    const bench = await startBenchApp();
    started.push({ dir, bench, requests: [], rates: [], cpu: [] });
    started.at(-1)!.requests = (mode === 'create' ? await createLoad(bench) : await readLoad(bench)).requests;
  }
  for (const build of started) await runLoad({ origin: build.bench.app.url, requests: build.requests, concurrency: 16, warmupMs: 0, durationMs: 2_000 });
  for (let slice = 0; slice < slices; slice++) {
    for (const build of slice % 2 ? [...started].reverse() : started) {
      const result = await runLoad({ origin: build.bench.app.url, requests: build.requests, concurrency: 16, warmupMs: 300, durationMs: 2_000 });
      build.rates.push(result.perSecond);
      build.cpu.push((result.serverCpu / result.perSecond) * 1e6);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const base = started[0]!;
  for (const build of started) {
    const ratios = build.rates.map((rate, slice) => rate / base.rates[slice]!);
    console.log(
      `${mode} ${build.dir}: ${median(build.rates).toFixed(0)} req/s, ${median(build.cpu).toFixed(0)} µs CPU per request, ` +
        `rate / base ${median(ratios).toFixed(3)} (slices ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')})`,
    );
  }
} finally {
  for (const build of started) await build.bench.close();
}
