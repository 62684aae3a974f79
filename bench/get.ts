/**
 * Read throughput: GET /v1/generations/{id} (auth, rate-limit bucket, one indexed SQLite read,
 * resource formatting), cycling over 200 generations, against the floor: a bare h3 v2 app on
 * node:http answering the same route with a constant generation resource of the same size. The
 * same-work ceiling (support/same-work.ts) is measured beside them.
 *
 *   node --import tsx bench/get.ts
 */
import { readLoad } from './support/api-loads.ts';
import { apiThroughput } from './support/api-benchmark.ts';
import { runBenchmark, sized } from './support/report.ts';
import { concurrency } from './support/throughput.ts';

const generations = sized(200, 20);

runBenchmark(
  () =>
    apiThroughput({
      label: 'get GET /v1/generations/{id}',
      describe: () => `get: GET /v1/generations/{id} over ${generations} generations, concurrency ${concurrency}`,
      load: (bench) => readLoad(bench, generations),
      target: 0.9,
    }),
  { boundSeconds: sized(240, 60) },
);
