/**
 * The benchmarks as CI runs them: every one in smoke mode (one small round, no targets), so a
 * benchmark that crashes, hangs or leaves processes behind fails here; `--against` from this
 * checkout; and the time bounds. Nothing about speed is asserted.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runBenchmarkProcess } from '../bench/support/benchmark-process.ts';

const root = path.join(import.meta.dirname, '..');
const runner = path.join(root, 'bench', 'run.ts');
const execFileAsync = promisify(execFile);

function withoutCoverage(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_V8_COVERAGE: _coverage, ...rest } = env;
  return rest;
}

async function bench(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', runner, ...args], {
      cwd: root,
      // Without c8's coverage: the benchmarks' servers and clients are measured code, not tested code, and
      // writing their coverage costs CI minutes.
      env: { ...withoutCoverage(process.env), BENCH_SMOKE: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('benchmarks', () => {
  it('every benchmark runs to the end in smoke mode and hands over its figures', async () => {
    const { code, output } = await bench([]);
    assert.equal(code, 0, output);
    const names = [...output.matchAll(/^=== (\S+) ===$/gm)]
      .map((match) => match[1])
      .filter((name) => name !== 'summary');
    assert.ok(names.length >= 8, `ran only ${names.join(', ')}`);
    for (const name of names)
      assert.match(output, new RegExp(`^\\(${name}: [\\d.]+ s, exit 0,`, 'm'), `${name} did not end cleanly`);
    const summary = output.slice(output.indexOf('=== summary ==='));
    for (const label of [
      'create POST',
      'get GET',
      'variants 1K',
      'latency 1K',
      'deliver webhooks',
      'postgres create',
      'render throughput',
      'queue',
    ]) {
      assert.ok(summary.includes(label), `the summary has no ${label} row:\n${summary}`);
    }
    // Smoke rounds are too small for targets.
    assert.doesNotMatch(summary, /MISSED|\byes\b/);
  });

  it('--against runs a ref from this repository beside the working tree and prints new/old per figure', async () => {
    const { code, output } = await bench(['--against', 'HEAD', '--rounds', '1', 'get']);
    assert.equal(code, 0, output);
    assert.match(output, /=== get \(HEAD [0-9a-f]{10}, round 1 of 1\) ===/);
    assert.match(output, /=== get \(working tree, round 1 of 1\) ===/);
    const againstTable = output.slice(output.indexOf('=== new (working tree) against old (HEAD'));
    assert.match(
      againstTable,
      /get GET \/v1\/generations\/\{id\}: visualizer vs bare h3 \+ same SQLite work \(req\/s\)\s+[\d.]+\s+[\d.]+\s+[\d.]+/,
    );
    assert.match(againstTable, /\((higher|lower) is better\)/);
    // The worktree is gone again.
    const { stdout } = await execFileAsync('git', ['worktree', 'list'], { cwd: root });
    assert.doesNotMatch(stdout, /visualizer-against-/);
  });

  it('--against names a ref that does not exist', async () => {
    const { code, output } = await bench(['--against', 'no-such-ref-here', 'get']);
    assert.notEqual(code, 0);
    assert.match(output, /--against no-such-ref-here: not a commit of this repository/);
  });

  it('a benchmark that never finishes fails at its own time bound', async () => {
    const run = await runBenchmarkProcess(path.join(root, 'test/fixtures/bench/never-settles.ts'), root);
    assert.equal(run.failure, 'exited with 1');
    assert.deepEqual(run.rows, []);
  });

  it('a benchmark whose event loop is blocked is stopped by the runner past its bound', async () => {
    const run = await runBenchmarkProcess(path.join(root, 'test/fixtures/bench/blocks-its-loop.ts'), root);
    assert.match(run.failure ?? '', /past its bound of 1 s; stopped/);
    assert.ok(run.seconds < 15, `stopped only after ${run.seconds} s`);
  });
});
