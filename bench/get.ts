/**
 * Read throughput: GET /v1/generations/{id} (auth, rate-limit bucket, one indexed SQLite read,
 * resource formatting), cycling over 200 generations, against the floor: a bare h3 v2 app on
 * node:http answering the same route with a constant generation resource of the same size.
 *
 *   node --import tsx bench/get.ts
 */
import { startBareH3 } from './support/bare-h3.ts';
import { startBenchApp } from './support/app.ts';
import { readLoad } from './support/api-loads.ts';
import { fixed, runBenchmark, summaryRow, type SummaryRow } from './support/report.ts';
import { compareThroughput, concurrency, setupLine, throughputTable } from './support/throughput.ts';

const target = 0.7;
const generations = 200;

async function main(): Promise<SummaryRow[]> {
  const bench = await startBenchApp();
  let floor: Awaited<ReturnType<typeof startBareH3>> | undefined;
  try {
    const { requests, floorRoutes } = await readLoad(bench, generations);
    floor = await startBareH3(floorRoutes);

    console.log(`get: GET /v1/generations/{id} over ${generations} generations, concurrency ${concurrency}`);
    console.log(setupLine());
    const { bare, ours } = await compareThroughput(floor.url, bench.app.url, requests);
    const ratio = ours.perSecond / bare.perSecond;
    console.log(throughputTable([
      ['bare h3 (floor)', bare],
      ['visualizer', ours],
    ]));
    console.log(`ratio visualizer/floor: ${fixed(ratio, 2)} (target >= ${target})`);
    return [summaryRow(`get GET /v1/generations/{id} (req/s)`, fixed(ours.perSecond, 0), fixed(bare.perSecond, 0), ratio, { atLeast: target })];
  } finally {
    await floor?.close();
    await bench.close();
  }
}

runBenchmark(main);
