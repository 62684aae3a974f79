import { startBareH3 } from './bare-h3.ts';
import type { startBenchApp } from './app.ts';
import { startPostgresSameWork, type PostgresApiLoad } from './postgres-same-work.ts';
import { fixed, summaryRow, type SummaryRow } from './report.ts';
import { compareThroughput, setupLine, throughputTable } from './throughput.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * One API throughput benchmark on Postgres, as api-benchmark.ts does it on SQLite: the floor (bare
 * h3, constant answer), the same-work ceiling (bare h3 sending the route's SQL through a pg pool,
 * see postgres-same-work.ts) and ours, loaded in turn with the same requests. The issue sets targets
 * only for SQLite, so these ratios are reported without one.
 */
export async function postgresApiThroughput(
  bench: BenchApp,
  databaseUrl: string,
  options: { label: string; describe: string; load: (bench: BenchApp) => Promise<PostgresApiLoad> },
): Promise<SummaryRow[]> {
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const { requests, floorRoutes, sameWorkRoutes } = await options.load(bench);
    const floor = await startBareH3(floorRoutes);
    opened.push(floor);
    const sameWork = await startPostgresSameWork(databaseUrl, sameWorkRoutes);
    opened.push(sameWork);

    console.log(options.describe);
    console.log(setupLine());
    const measured = await compareThroughput({ floor: floor.url, sameWork: sameWork.url, ours: bench.app.url }, requests);
    console.log(throughputTable([
      ['bare h3 (floor)', measured.floor],
      ['bare h3 + same Postgres work', measured.sameWork],
      ['visualizer', measured.ours],
    ]));
    const ratio = measured.ours.perSecond / measured.floor.perSecond;
    const ceiling = measured.sameWork.perSecond / measured.floor.perSecond;
    const ofCeiling = measured.ours.perSecond / measured.sameWork.perSecond;
    console.log(`ratio visualizer/floor: ${fixed(ratio, 2)}; same work/floor: ${fixed(ceiling, 2)}; visualizer/same work: ${fixed(ofCeiling, 2)}`);
    const [floorRate, sameWorkRate, ourRate] = [measured.floor, measured.sameWork, measured.ours].map((m) => fixed(m.perSecond, 0)) as [string, string, string];
    return [
      summaryRow(`${options.label} (req/s)`, ourRate, floorRate, ratio),
      summaryRow(`${options.label}: bare h3 + same Postgres work vs floor`, sameWorkRate, floorRate, ceiling),
      summaryRow(`${options.label}: visualizer vs bare h3 + same Postgres work`, ourRate, sameWorkRate, ofCeiling),
    ];
  } finally {
    for (const server of opened.reverse()) await server.close();
  }
}
