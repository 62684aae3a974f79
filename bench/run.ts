/**
 * Runs benchmarks, each in its own process (`node --import tsx bench/X.ts`), and prints a summary
 * table at the end. Ratios are measured against a floor or a ceiling in the same run; nothing
 * asserts — a missed target is shown, not failed. A benchmark that crashes, hangs past its time
 * bound or sends no figures makes the run exit 1.
 *
 *   npm run bench                          # all
 *   npm run bench -- get latency           # some
 *   npm run bench -- --against main get    # the working tree against another build, alternating
 *   BENCH_SMOKE=1 npm run bench            # one small round each, no targets (CI)
 *
 * `--against REF` checks REF out in a temporary worktree and runs each chosen benchmark (this
 * tree's benchmark code) there and here in turns (`--rounds`, default 2: base, new, then new,
 * base), then prints new/old per figure.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { prepareBaseBuild } from './support/base-build.ts';
import { runBenchmarkProcess, type BenchmarkRun } from './support/benchmark-process.ts';
import { againstTable } from './support/against.ts';
import { fixed, table, type SummaryRow } from './support/report.ts';
import { cpuTimes, stealShare } from './support/steal.ts';

const all = [
  'create',
  'get',
  'variants',
  'latency',
  'deliver',
  'postgres-api',
  'limits',
  'render-throughput',
  'queue',
  'idle-rss',
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { against: { type: 'string' }, rounds: { type: 'string' } },
});
const chosen = positionals.length ? positionals : all;
const unknown = chosen.filter((name) => !all.includes(name));
const rounds = Number(values.rounds ?? 2);
if (unknown.length || !Number.isInteger(rounds) || rounds < 1) {
  console.error(
    unknown.length
      ? `unknown benchmark ${unknown.join(', ')}; choose from ${all.join(', ')}`
      : '--rounds takes a whole number of at least 1',
  );
  process.exit(2);
}

const here = fileURLToPath(new URL('..', import.meta.url));

/** Runs one benchmark of the build in `dir`, printing the load average and CPU steal over its run. */
async function measured(name: string, dir: string, label: string): Promise<BenchmarkRun> {
  console.log(`\n=== ${name}${label} ===`);
  // Other processes on the machine skew every figure; the 1-minute load average shows whether they were there.
  const loadBefore = os.loadavg()[0]!;
  const timesBefore = cpuTimes();
  const run = await runBenchmarkProcess(path.join(dir, 'bench', `${name}.ts`), dir);
  const steal = stealShare(timesBefore);
  console.log(
    `(${name}${label}: ${fixed(run.seconds)} s, ${run.failure ?? 'exit 0'}, load average ${fixed(loadBefore, 2)} → ${fixed(os.loadavg()[0]!, 2)} on ${os.availableParallelism()} cores` +
      `${steal === null ? '' : `, CPU steal ${fixed(steal * 100, 1)} %`})`,
  );
  return run;
}

const failures: string[] = [];
const noteFailure = (name: string, label: string, run: BenchmarkRun) =>
  run.failure && failures.push(`${name}${label}: ${run.failure}`);

if (values.against === undefined) {
  const summary: SummaryRow[] = [];
  for (const name of chosen) {
    const run = await measured(name, here, '');
    noteFailure(name, '', run);
    summary.push(...run.rows);
  }
  console.log('\n=== summary ===');
  // A ratio over a zero reference (a reference that failed) is Infinity, which arrives as null: JSON has neither.
  console.log(
    table(
      ['benchmark', 'ours', 'floor', 'ratio', 'target', 'met'],
      summary.map((row) => [
        row.benchmark,
        row.ours,
        row.floor,
        Number.isFinite(row.ratio) ? fixed(row.ratio, 2) : '-',
        row.target ?? '-',
        row.meets === null ? '-' : row.meets ? 'yes' : 'MISSED',
      ]),
    ),
  );
} else {
  const base = await prepareBaseBuild(here, values.against);
  try {
    const runs = { old: new Map<string, SummaryRow[][]>(), new: new Map<string, SummaryRow[][]>() };
    for (let round = 0; round < rounds; round++) {
      // base, new, then new, base: drift over the run hits both builds alike.
      const order = round % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const name of chosen) {
        for (const build of order) {
          const label = ` (${build === 'old' ? `${values.against} ${base.commit.slice(0, 10)}` : 'working tree'}, round ${round + 1} of ${rounds})`;
          const run = await measured(name, build === 'old' ? base.dir : here, label);
          noteFailure(name, label, run);
          runs[build].set(name, [...(runs[build].get(name) ?? []), run.rows]);
        }
      }
    }
    console.log(
      `\n=== new (working tree) against old (${values.against}, ${base.commit.slice(0, 10)}), medians of ${rounds} round${rounds > 1 ? 's' : ''} ===`,
    );
    console.log(
      againstTable(chosen.map((name) => ({ name, old: runs.old.get(name) ?? [], new: runs.new.get(name) ?? [] }))),
    );
  } finally {
    await base.remove();
  }
}
for (const failure of failures) console.log(`FAILED ${failure}`);
process.exitCode = failures.length ? 1 : 0;
