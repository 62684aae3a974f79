/**
 * What naming a row costs: the generation read of every GET, in a tight loop on a real database
 * (one generation made through the API), as better-sqlite3 names rows itself (an object built
 * column by column through V8's C++ API) and as `plugins/store-kysely/sqlite-statements.ts` runs it
 * (an array, named by an object literal made for the statement). Alternating rounds; medians.
 *
 *   node --import tsx bench/tools/row-naming.ts
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { statementRunner } from '../../plugins/store-kysely/sqlite-statements.ts';
import { startBenchApp } from '../support/app.ts';
import { fixed, percentile } from '../support/report.ts';

const reads = 100_000;
const rounds = 5;

const bench = await startBenchApp();
try {
  const created = await fetch(`${bench.app.url}/v1/generations`, { method: 'POST', headers: bench.headers, body: bench.createBody });
  const { id } = (await created.json()) as { id: string };
  const database = new BetterSqlite3(path.join(bench.app.container.cradle.config.dataDir, 'visualizer.db'), { readonly: true });
  try {
    const { organization_id } = database.prepare('select organization_id from generations where id = ?').get(id) as { organization_id: string };
    const sql = 'select * from "generations" where "id" = ? and "organization_id" = ?';
    const parameters = [id, organization_id];
    const named = database.prepare(sql);
    const run = statementRunner(database);
    const ways = {
      'better-sqlite3 names the row': () => named.all(parameters),
      'array + object literal (ours)': () => run(sql, parameters).rows,
    };
    const timings = new Map<string, number[]>(Object.keys(ways).map((way) => [way, []]));
    for (let round = 0; round <= rounds; round++) {
      for (const [way, read] of Object.entries(ways)) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < reads; i++) read();
        // Round 0 warms both up and is not counted.
        if (round > 0) timings.get(way)!.push(Number(process.hrtime.bigint() - started) / reads / 1000);
      }
    }
    console.log(`generation read (${named.columns().length} columns), ${rounds} rounds of ${reads} reads, median µs per read:`);
    for (const [way, times] of timings) console.log(`  ${way.padEnd(32)} ${fixed(percentile(times.sort((a, b) => a - b), 50), 2)}`);
  } finally {
    database.close();
  }
} finally {
  await bench.close();
}
