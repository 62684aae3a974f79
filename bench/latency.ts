/**
 * POST-to-complete latency with the mock renderer at 1K: 200 generations submitted at a steady
 * 10/s to the real app (SQLite, local CDN, HTTPS image host on loopback, workers started with the
 * default concurrency), each polled with GET every 20 ms until complete. The floor is the time
 * the mock renderer plus the variants with their Content Credentials (credentialedRender, as every
 * render must mark its images: EU AI Act Art. 50(2)) alone take for one 1K render (median),
 * measured in the same process before the load starts; what lies between is image fetches,
 * queueing, CDN writes, database transactions and the polling interval.
 *
 *   node --import tsx bench/latency.ts
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startWorkers } from '../core/lifecycle.ts';
import { credentialedRender } from '../core/services/credentialed-render.ts';
import type { Logger } from '../core/logger.ts';
import { startBenchApp } from './support/app.ts';
import type { LatencyResult, LatencySpec } from './support/latency-client.ts';
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

const count = sized(200, 10);
/** The rate asked for; lowered when this machine cannot render that many per second (see below). */
const requestedPerSecond = Number(process.env.BENCH_LATENCY_RATE ?? 10);
const pollMs = 20;
/** p50 against the floor. */
const target = 1.15;
const floorIterations = sized(21, 3);

function runClient(spec: LatencySpec): Promise<LatencyResult> {
  const child = fork(fileURLToPath(new URL('./support/latency-client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let answer: { result?: LatencyResult; error?: string } | undefined;
    child.once('message', (message: { result?: LatencyResult; error?: string }) => (answer = message));
    child.once('error', reject);
    // Resolved on exit, so the child is gone before the benchmark cleans up.
    child.once('exit', (code) => {
      if (answer?.result) resolve(answer.result);
      else
        reject(
          new Error(
            `latency client ${answer?.error ? `failed: ${answer.error}` : `exited with ${code} before answering`}`,
          ),
        );
    });
    child.send(spec);
  });
}

async function main(): Promise<SummaryRow[]> {
  const problems: string[] = [];
  const logger: Logger = {
    info() {},
    warn: (message, fields) => problems.push(`warn: ${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => problems.push(`error: ${message} ${JSON.stringify(fields ?? {})}`),
  };
  const bench = await startBenchApp({ logger });
  try {
    const { renderer, config, credentials, imageMemory } = bench.app.container.cradle;

    // Floor: the render and its marked variants, nothing else, one at a time.
    const request = {
      mode: 'virtual-try-on' as const,
      imageSize: '1K' as const,
      photo: bench.photo,
      products: [
        { productId: 'sku-1042', productTitle: 'Linen overshirt, rust', image: bench.product, dimensions: null },
      ],
      hint: null,
    };
    const floorTimes: number[] = [];
    let floorCpu: NodeJS.CpuUsage | undefined;
    for (let i = 0; i < floorIterations + 3; i++) {
      if (i === 3) floorCpu = process.cpuUsage();
      const started = performance.now();
      const rendered = await renderer.render(request);
      await credentialedRender(rendered.image, {
        credentials,
        engine: renderer,
        generationId: `gen_floor_${i}`,
        budget: imageMemory,
      });
      if (i >= 3) floorTimes.push(performance.now() - started);
    }
    const floor = median(floorTimes);
    const used = process.cpuUsage(floorCpu);
    const cpuPerRender = (used.user + used.system) / 1000 / floorIterations;

    // A latency run must stay below capacity, or it measures a growing queue instead. The floor's
    // CPU per render bounds what the cores can do; at most half of that is offered (the whole
    // pipeline costs more CPU than the floor), unless BENCH_LATENCY_RATE says otherwise.
    const cores = os.availableParallelism();
    const capacity = (cores * 1000) / cpuPerRender;
    const perSecond = process.env.BENCH_LATENCY_RATE
      ? requestedPerSecond
      : Math.min(requestedPerSecond, Math.floor(capacity * 0.5 * 10) / 10);

    const loadBefore = os.loadavg()[0]!;
    const concurrency = await startWorkers(bench.app.container.cradle);
    console.log(
      `latency: ${count} generations (1K, ${renderer.name} renderer) at ${perSecond}/s, polled every ${pollMs} ms; ${concurrency} workers (config.workers.concurrency); client in a separate process`,
    );
    console.log(
      `floor CPU ${fixed(cpuPerRender)} ms per render on ${cores} cores: at most ~${fixed(capacity)} renders/s` +
        (perSecond < requestedPerSecond
          ? `, so ${requestedPerSecond}/s would only measure a growing queue; offering half of that (set BENCH_LATENCY_RATE to force a rate)`
          : ''),
    );
    const result = await runClient({
      origin: bench.app.url,
      headers: bench.headers,
      body: bench.createBody,
      warmup: sized(5, 1),
      count,
      perSecond,
      pollMs,
    });

    const observed = result.completed.map((c) => c.observedMs).sort((a, b) => a - b);
    const server = result.completed.map((c) => c.serverMs).sort((a, b) => a - b);
    const row = (label: string, values: number[]) => [
      label,
      values.length,
      fixed(percentile(values, 50)),
      fixed(percentile(values, 95)),
      fixed(percentile(values, 99)),
      fixed(values.at(-1) ?? NaN),
    ];
    console.log(
      table(
        ['measure', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        [
          row('POST → seen complete (client)', observed),
          row('createdAt → completedAt (server)', server),
          row(
            'floor: mock render + variants with Content Credentials',
            [...floorTimes].sort((a, b) => a - b),
          ),
        ],
      ),
    );
    const ratio = percentile(observed, 50) / floor;
    const polls = result.completed.map((c) => c.polls);
    console.log(
      `floor (median of ${floorIterations}): ${fixed(floor)} ms; ratio p50/floor: ${fixed(ratio, 2)}; ` +
        `submitted at ${fixed(result.submittedPerSecond, 1)}/s; polls per generation median ${median(polls)}; ` +
        `failed ${result.failed.length}; render attempts allowed ${config.render.maxAttempts}`,
    );
    // A queue that keeps growing means the machine fell behind the offered rate (often other
    // processes taking the cores): the figures are then queueing time, not latency.
    const bySubmission = [...result.completed].sort((a, b) => a.index - b.index).map((c) => c.observedMs);
    const quarter = Math.max(1, Math.floor(bySubmission.length / 4));
    const firstQuarter = median(bySubmission.slice(0, quarter));
    const lastQuarter = median(bySubmission.slice(-quarter));
    console.log(
      `p50 of the first quarter submitted ${fixed(firstQuarter)} ms, of the last ${fixed(lastQuarter)} ms; ` +
        `1-min load average ${fixed(loadBefore, 2)} → ${fixed(os.loadavg()[0]!, 2)} on ${cores} cores` +
        (lastQuarter > 2 * firstQuarter || percentile(observed, 50) > 3 * floor
          ? '\nWARNING: latency rose through the run or sits far above the floor: the machine did not keep up with the offered rate ' +
            '(other processes? see the load average), so these figures are mostly queueing.'
          : ''),
    );
    for (const failure of result.failed.slice(0, 5)) console.log('failed:', JSON.stringify(failure));
    for (const problem of problems.slice(0, 5)) console.log(problem);
    if (problems.length > 5) console.log(`… ${problems.length - 5} more log lines`);
    return [
      summaryRow(
        'latency 1K POST→complete (p50, ms)',
        `${fixed(percentile(observed, 50))} ms`,
        `${fixed(floor)} ms`,
        ratio,
        { atMost: target },
      ),
    ];
  } finally {
    await bench.close();
  }
}

runBenchmark(main, { boundSeconds: sized(300, 90) });
