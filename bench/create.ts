/**
 * Create throughput: POST /v1/generations (https image URLs on a loopback image host, 1K, SQLite,
 * workers not started, so only the API path is measured: auth, validation, credit debit,
 * generation row, job row, all in one transaction) against the floor: a bare h3 v2 app on
 * node:http reading the same JSON body and answering a constant generation resource.
 *
 *   node --import tsx bench/create.ts
 */
import { startBareH3 } from './support/bare-h3.ts';
import { startBenchApp } from './support/app.ts';
import { createLoad } from './support/api-loads.ts';
import { fixed, runBenchmark, summaryRow, type SummaryRow } from './support/report.ts';
import { compareThroughput, concurrency, setupLine, throughputTable } from './support/throughput.ts';

const target = 0.5;

async function main(): Promise<SummaryRow[]> {
  const bench = await startBenchApp();
  let floor: Awaited<ReturnType<typeof startBareH3>> | undefined;
  try {
    const { requests, floorRoutes } = await createLoad(bench);
    floor = await startBareH3(floorRoutes);
    console.log(`create: POST /v1/generations (${bench.createBody.length} B JSON body), concurrency ${concurrency}`);
    console.log(setupLine());
    const { bare, ours } = await compareThroughput(floor.url, bench.app.url, requests);
    const ratio = ours.perSecond / bare.perSecond;
    console.log(throughputTable([
      ['bare h3 (floor)', bare],
      ['visualizer', ours],
    ]));
    console.log(`ratio visualizer/floor: ${fixed(ratio, 2)} (target >= ${target})`);
    return [summaryRow(`create POST /v1/generations (req/s)`, fixed(ours.perSecond, 0), fixed(bare.perSecond, 0), ratio, { atLeast: target })];
  } finally {
    await floor?.close();
    await bench.close();
  }
}

runBenchmark(main);
