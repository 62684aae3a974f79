/**
 * Two or more builds of the service under the create or get load, each run as an operator runs
 * it: `visualizer serve` from the build's own directory, in a process of its own, on SQLite in a
 * temp data dir (workers off, rate limits out of the way). The builds are loaded in turn for short
 * slices whose order reverses every slice, so load from other processes drifts over all of them
 * alike; that separates differences of a few percent, which separate benchmark runs (whose ratios
 * move by ±20 % on a shared machine) cannot. A process per build also keeps process-wide costs
 * apart: one build's async hooks (AsyncLocalStorage) slow every promise of its own process only.
 *
 *   git worktree add --detach /tmp/before <ref> && ln -s "$PWD/node_modules" /tmp/before/
 *   node --import tsx bench/tools/compare-builds.ts get 12 /tmp/before .
 *
 * Arguments: `create` or `get`, the number of slices (2 s each, after 0.3 s of warm-up), then the
 * builds' directories, the first being the base. Prints each build's median req/s and server CPU
 * per request, and the medians over slices of its rate and its CPU per request against the base's
 * in the same slice. `--fail-below R` exits 1 when the last build's CPU per request, base/this, is
 * below R (the rate moves more with other processes), so that `git bisect run` can call it
 * (bench/README.md, Comparing two builds).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../core/http/free-port.ts';
import { Cluster, type ClusterProcess } from '../../test/support/cluster.ts';
import { testCertificates } from '../../test/support/https-server.ts';
import { createBodyFor, startBenchImageHost, unlimited } from '../support/app.ts';
import { runLoad, type LoadRequest } from '../support/load.ts';
import { median } from '../support/report.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'fail-below': { type: 'string' } } });
const [mode, slicesArgument, ...builds] = positionals;
const slices = Number(slicesArgument);
const failBelow = values['fail-below'] === undefined ? undefined : Number(values['fail-below']);
if (
  (mode !== 'create' && mode !== 'get') ||
  !(slices > 0) ||
  builds.length < 2 ||
  (failBelow !== undefined && !(failBelow > 0))
) {
  console.error('usage: compare-builds.ts create|get SLICES BASE_DIR OTHER_DIR... [--fail-below RATIO]');
  process.exit(2);
}
const generations = 200;
const concurrency = 16;

interface Build {
  dir: string;
  server: ClusterProcess & { url: string };
  requests: LoadRequest[];
  rates: number[];
  cpu: number[];
}

/** `visualizer serve` of the build in `dir`, with an organization rich enough for any load. */
async function startBuild(
  dir: string,
  caFile: string,
  work: string,
): Promise<Omit<Build, 'requests' | 'rates' | 'cpu'> & { apiKey: string }> {
  const dataDir = mkdtempSync(path.join(work, 'build-'));
  const config = path.join(dataDir, 'config.json');
  writeFileSync(config, JSON.stringify({ rateLimits: unlimited }));
  const cluster = new Cluster(
    {
      VISUALIZER_DATA_DIR: dataDir,
      VISUALIZER_CONFIG: config,
      VISUALIZER_WORKER_CONCURRENCY: '0',
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: caFile,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    path.join(dir, 'bin', 'visualizer.js'),
  );
  const { apiKey } = JSON.parse(
    await cluster.run(['orgs', 'create', '--name', 'Bench', '--credits', '1000000000', '--json']),
  ) as { apiKey: string };
  const started = await cluster.start(dir, ['serve'], /listening on (http:\S+)/, { PORT: String(await freePort()) });
  return { dir, apiKey, server: Object.assign(started, { url: started.match[1]! }) };
}

async function requestsFor(url: string, apiKey: string, imageHost: string): Promise<LoadRequest[]> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const body = createBodyFor(imageHost);
  const create: LoadRequest = { method: 'POST', path: '/v1/generations', headers, body };
  if (mode === 'create') return [create];
  const reads: LoadRequest[] = [];
  for (let i = 0; i < generations; i++) {
    const response = await fetch(`${url}/v1/generations`, { method: 'POST', headers, body });
    if (response.status !== 202) throw new Error(`create answered ${response.status}: ${await response.text()}`);
    const { id } = (await response.json()) as { id: string };
    reads.push({ method: 'GET', path: `/v1/generations/${id}`, headers: { authorization: headers.authorization } });
  }
  return reads;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'visualizer-compare-'));
const { host } = await startBenchImageHost();
const started: Build[] = [];
let lastRatio = NaN;
try {
  const { caFile } = await testCertificates();
  for (const dir of builds.map((build) => path.resolve(build))) {
    const { apiKey, ...build } = await startBuild(dir, caFile, work);
    started.push({ ...build, requests: [], rates: [], cpu: [] });
    started.at(-1)!.requests = await requestsFor(build.server.url, apiKey, host.url);
  }
  const load = (build: Build, warmupMs: number) =>
    runLoad(
      { origin: build.server.url, requests: build.requests, concurrency, warmupMs, durationMs: 2_000 },
      { serverPid: build.server.child.pid },
    );
  for (const build of started) await load(build, 0);
  for (let slice = 0; slice < slices; slice++) {
    for (const build of slice % 2 ? [...started].reverse() : started) {
      const result = await load(build, 300);
      const failures = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'));
      if (failures.length)
        throw new Error(`${build.dir} answered ${failures.map(([status, count]) => `${status}×${count}`).join(' ')}`);
      build.rates.push(result.perSecond);
      build.cpu.push((result.serverCpu / result.perSecond) * 1e6);
    }
  }
  const base = started[0]!;
  for (const build of started) {
    const ratios = build.rates.map((rate, slice) => rate / base.rates[slice]!);
    // Base CPU over this build's, per request: above 1 is cheaper. Time another process takes
    // from the server is not CPU time of the server's, so this moves less than the rate does.
    const cheaper = build.cpu.map((cpu, slice) => base.cpu[slice]! / cpu);
    lastRatio = median(cheaper);
    console.log(
      `${mode} ${build.dir}: ${median(build.rates).toFixed(0)} req/s, ${median(build.cpu).toFixed(0)} µs CPU per request; against the base: ` +
        `rate ${median(ratios).toFixed(3)} (slices ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}), ` +
        `CPU per request base/this ${median(cheaper).toFixed(3)} (slices ${cheaper.map((ratio) => ratio.toFixed(2)).join(' ')})`,
    );
  }
} finally {
  for (const build of started) await build.server.stop('SIGTERM');
  await host.close();
  rmSync(work, { recursive: true, force: true });
}
if (failBelow !== undefined && !(lastRatio >= failBelow)) {
  console.log(`CPU per request base/this ${lastRatio.toFixed(3)} is below ${failBelow}`);
  process.exitCode = 1;
}
