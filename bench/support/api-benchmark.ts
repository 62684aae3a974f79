import path from 'node:path';
import { startBareH3 } from './bare-h3.ts';
import { startBenchApp } from './app.ts';
import type { ApiLoad } from './api-loads.ts';
import { fixed, summaryRow, type SummaryRow } from './report.ts';
import { startSameWork } from './same-work.ts';
import { compareThroughput, concurrency, setupLine, throughputTable } from './throughput.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * One API throughput benchmark: the floor (bare h3, constant answer), the same-work ceiling (bare
 * h3 doing the route's SQLite work, see same-work.ts) and ours, loaded in turn with the same
 * requests. The target is ours/floor, as the issue sets it; ceiling/floor and ours/ceiling are
 * printed beside it, to tell the database's share of the gap from the app's.
 */
export async function apiThroughput(options: { label: string; describe: (bench: BenchApp) => string; load: (bench: BenchApp) => Promise<ApiLoad>; target: number }): Promise<SummaryRow[]> {
  const bench = await startBenchApp();
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const { requests, floorRoutes, sameWorkRoutes } = await options.load(bench);
    const floor = await startBareH3(floorRoutes);
    opened.push(floor);
    const sameWork = await startSameWork(path.join(bench.app.container.cradle.config.dataDir, 'visualizer.db'), sameWorkRoutes);
    opened.push(sameWork);

    console.log(options.describe(bench));
    console.log(setupLine());
    const measured = await compareThroughput({ floor: floor.url, sameWork: sameWork.url, ours: bench.app.url }, requests);
    console.log(throughputTable([
      ['bare h3 (floor)', measured.floor],
      ['bare h3 + same SQLite work', measured.sameWork],
      ['visualizer', measured.ours],
    ]));
    const ratio = measured.ours.perSecond / measured.floor.perSecond;
    const ceiling = measured.sameWork.perSecond / measured.floor.perSecond;
    const ofCeiling = measured.ours.perSecond / measured.sameWork.perSecond;
    console.log(`ratio visualizer/floor: ${fixed(ratio, 2)} (target >= ${options.target}); same work/floor: ${fixed(ceiling, 2)}; visualizer/same work: ${fixed(ofCeiling, 2)}`);
    const [floorRate, sameWorkRate, ourRate] = [measured.floor, measured.sameWork, measured.ours].map((m) => fixed(m.perSecond, 0)) as [string, string, string];
    return [
      summaryRow(`${options.label} (req/s)`, ourRate, floorRate, ratio, { atLeast: options.target }),
      summaryRow(`${options.label}: bare h3 + same SQLite work vs floor`, sameWorkRate, floorRate, ceiling),
      summaryRow(`${options.label}: visualizer vs bare h3 + same SQLite work`, ourRate, sameWorkRate, ofCeiling),
    ];
  } finally {
    for (const server of opened.reverse()) await server.close();
    await bench.close();
  }
}
