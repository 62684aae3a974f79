/**
 * Runs every benchmark in sequence, each in its own process (`node --import tsx bench/X.ts`), and
 * prints a summary table at the end. Ratios are measured against a floor in the same run; nothing
 * asserts — a missed target is shown, not failed.
 *
 *   npm run bench                 # all
 *   npm run bench -- get latency  # some
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fixed, table, type SummaryRow } from './support/report.ts';
import { cpuTimes, stealShare } from './support/steal.ts';

const all = ['create', 'get', 'variants', 'latency', 'deliver', 'postgres-api', 'render-throughput', 'queue'];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
const unknown = chosen.filter((name) => !all.includes(name));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${all.join(', ')}`);
  process.exit(2);
}

function run(name: string): Promise<{ rows: SummaryRow[]; code: number | null; seconds: number }> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const rows: SummaryRow[] = [];
  child.on('message', (message: { rows?: SummaryRow[] }) => rows.push(...(message.rows ?? [])));
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(`${name}: could not start: ${error.message}`);
      resolve({ rows, code: null, seconds: (performance.now() - started) / 1000 });
    });
    child.once('exit', (code) => resolve({ rows, code, seconds: (performance.now() - started) / 1000 }));
  });
}

const summary: Array<Array<string | number>> = [];
const failures: string[] = [];
for (const name of chosen) {
  console.log(`\n=== ${name} ===`);
  // Other processes on the machine skew every figure; the 1-minute load average shows whether they were there.
  const loadBefore = os.loadavg()[0]!;
  const timesBefore = cpuTimes();
  const { rows, code, seconds } = await run(name);
  const steal = stealShare(timesBefore);
  console.log(
    `(${name}: ${fixed(seconds)} s, exit ${code}, load average ${fixed(loadBefore, 2)} → ${fixed(os.loadavg()[0]!, 2)} on ${os.availableParallelism()} cores` +
      `${steal === null ? '' : `, CPU steal ${fixed(steal * 100, 1)} %`})`,
  );
  if (code !== 0) failures.push(`${name} exited with ${code}`);
  for (const row of rows) {
    summary.push([row.benchmark, row.ours, row.floor, fixed(row.ratio, 2), row.target ?? '-', row.meets === null ? '-' : row.meets ? 'yes' : 'MISSED']);
  }
}

console.log('\n=== summary ===');
console.log(table(['benchmark', 'ours', 'floor', 'ratio', 'target', 'met'], summary));
for (const failure of failures) console.log(`note: ${failure}`);
