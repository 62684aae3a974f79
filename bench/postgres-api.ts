/**
 * Create and read throughput on Postgres: POST /v1/generations and GET /v1/generations/{id} (as
 * create.ts and get.ts measure them on SQLite) on a throwaway Postgres cluster, each against the
 * floor (bare h3, constant answer) and the same-work ceiling on that Postgres
 * (support/postgres-same-work.ts). The server's CPU column counts the Node process only; the
 * Postgres backends run in processes of their own on the same cores.
 *
 *   node --import tsx bench/postgres-api.ts
 */
import { startPostgresTestServer } from '../test/support/postgres-server.ts';
import { startBenchApp } from './support/app.ts';
import { postgresApiThroughput } from './support/postgres-api-benchmark.ts';
import { postgresCreateLoad, postgresReadLoad } from './support/postgres-same-work.ts';
import { runBenchmark, sized } from './support/report.ts';
import { concurrency } from './support/throughput.ts';

const generations = sized(200, 20);

runBenchmark(
  async () => {
    const postgres = await startPostgresTestServer();
    try {
      const databaseUrl = await postgres.createDatabase();
      const bench = await startBenchApp({ config: { databaseUrl } });
      try {
        const create = await postgresApiThroughput(bench, databaseUrl, {
          label: 'postgres create POST /v1/generations',
          describe: `postgres create: POST /v1/generations (${bench.createBody.length} B JSON body), concurrency ${concurrency}`,
          load: postgresCreateLoad,
        });
        const get = await postgresApiThroughput(bench, databaseUrl, {
          label: 'postgres get GET /v1/generations/{id}',
          describe: `postgres get: GET /v1/generations/{id} over ${generations} generations, concurrency ${concurrency}`,
          load: (b) => postgresReadLoad(b, generations),
        });
        return [...create, ...get];
      } finally {
        await bench.close();
      }
    } finally {
      await postgres.stop();
    }
  },
  { boundSeconds: sized(300, 90) },
);
