import { startBareH3 } from './bare-h3.ts';
import type { startBenchApp } from './app.ts';
import { startPostgresSameWork, type PostgresApiLoad } from './postgres-same-work.ts';
import type { SummaryRow } from './report.ts';
import { throughputAgainstCeiling } from './throughput.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * One API throughput benchmark on Postgres, as api-benchmark.ts does it on SQLite: the floor (bare
 * h3, constant answer), the same-work ceiling (bare h3 sending the route's SQL through a pg pool,
 * see postgres-same-work.ts) and ours, loaded in turn with the same requests; the target is
 * ours/same work's, as on SQLite.
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

    return await throughputAgainstCeiling({
      label: options.label,
      describe: options.describe,
      work: 'Postgres',
      target: 0.8,
      urls: { floor: floor.url, sameWork: sameWork.url, ours: bench.app.url },
      requests,
    });
  } finally {
    for (const server of opened.reverse()) await server.close();
  }
}
