import path from 'node:path';
import { startBareH3 } from './bare-h3.ts';
import { startBenchApp } from './app.ts';
import type { ApiLoad } from './api-loads.ts';
import type { SummaryRow } from './report.ts';
import { startSameWork } from './same-work.ts';
import { throughputAgainstCeiling } from './throughput.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * One API throughput benchmark: the floor (bare h3, constant answer), the same-work ceiling (bare
 * h3 doing the route's SQLite work, see same-work.ts) and ours, loaded in turn with the same
 * requests. The target is ours/floor, as the issue sets it; ceiling/floor and ours/ceiling are
 * printed beside it, to tell the database's share of the gap from the app's.
 */
export async function apiThroughput(options: {
  label: string;
  describe: (bench: BenchApp) => string;
  load: (bench: BenchApp) => Promise<ApiLoad>;
  target: number;
}): Promise<SummaryRow[]> {
  const bench = await startBenchApp();
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const { requests, floorRoutes, sameWorkRoutes } = await options.load(bench);
    const floor = await startBareH3(floorRoutes);
    opened.push(floor);
    const sameWork = await startSameWork(
      path.join(bench.app.container.cradle.config.dataDir, 'visualizer.db'),
      sameWorkRoutes,
    );
    opened.push(sameWork);

    return await throughputAgainstCeiling({
      label: options.label,
      describe: options.describe(bench),
      work: 'SQLite',
      target: options.target,
      urls: { floor: floor.url, sameWork: sameWork.url, ours: bench.app.url },
      requests,
    });
  } finally {
    for (const server of opened.reverse()) await server.close();
    await bench.close();
  }
}
