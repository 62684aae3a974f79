/**
 * Create throughput: POST /v1/generations (https image URLs on a loopback image host, 1K, SQLite,
 * workers not started, so only the API path is measured: auth, validation, credit debit,
 * generation row, job row, all in one transaction) against the floor: a bare h3 v2 app on
 * node:http reading the same JSON body and answering a constant generation resource. The
 * same-work ceiling (support/same-work.ts) is measured beside them.
 *
 *   node --import tsx bench/create.ts
 */
import { createLoad } from './support/api-loads.ts';
import { apiThroughput } from './support/api-benchmark.ts';
import { runBenchmark, sized } from './support/report.ts';
import { concurrency } from './support/throughput.ts';

runBenchmark(
  () =>
    apiThroughput({
      label: 'create POST /v1/generations',
      describe: (bench) =>
        `create: POST /v1/generations (${bench.createBody.length} B JSON body), concurrency ${concurrency}`,
      load: createLoad,
      target: 0.75,
    }),
  { boundSeconds: sized(240, 60) },
);
