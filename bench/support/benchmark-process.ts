import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { BenchmarkMessage, SummaryRow } from './report.ts';

export interface BenchmarkRun {
  rows: SummaryRow[];
  seconds: number;
  /** Why the run failed (its exit, its bound passed, no figures), or null. */
  failure: string | null;
}

/** Past its own bound a benchmark exits by itself; up to this much later (or its bound again, if shorter) it is stopped from outside. */
const outerGraceMs = 30_000;
/** Between SIGTERM and SIGKILL of a benchmark that would not stop. */
const killGraceMs = 10_000;

/** Signals the benchmark's process group: it and whatever it started (servers, load clients). */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Benchmarks running now: a Ctrl-C or SIGTERM of the runner stops them and theirs too (they are in groups of their own). */
const running = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const pid of running) signalGroup(pid, 'SIGKILL');
    process.exit(130);
  });
}

/** A benchmark that never says its bound (one from before bounds, or one that blocked at once) is stopped after this. */
const unannouncedBoundMs = 20 * 60_000;

/**
 * Runs the benchmark `file` (from `cwd`, its build's root) in a process group of its own and
 * collects the summary rows it sends. The benchmark tells its time bound when it starts (see
 * runBenchmark); a process still running well past it (its event loop blocked, say) is stopped
 * from here. Whatever the benchmark leaves running in its group when it exits is killed.
 */
export function runBenchmarkProcess(file: string, cwd: string): Promise<BenchmarkRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (child.pid !== undefined) running.add(child.pid);
  const rows: SummaryRow[] = [];
  let sentRows = false;
  let overdue: string | null = null;
  const timers: NodeJS.Timeout[] = [];
  const stopAfter = (ms: number, why: string) => {
    for (const timer of timers.splice(0)) clearTimeout(timer);
    timers.push(
      setTimeout(() => {
        overdue = `still running ${ms / 1000} s later, ${why}; stopped`;
        signalGroup(child.pid, 'SIGTERM');
        timers.push(setTimeout(() => signalGroup(child.pid, 'SIGKILL'), killGraceMs));
      }, ms),
    );
  };
  stopAfter(unannouncedBoundMs, 'and it never said its time bound');
  child.on('message', (message: BenchmarkMessage) => {
    if ('rows' in message) {
      rows.push(...message.rows);
      sentRows = true;
    } else if ('boundSeconds' in message) {
      const boundMs = message.boundSeconds * 1000;
      // Counted from now, as the benchmark counts its own bound: its start-up (loading tsx, slow on
      // a busy host) is not part of it, so the outer stop never comes before the benchmark's own.
      stopAfter(boundMs + Math.min(outerGraceMs, boundMs), `past its bound of ${message.boundSeconds} s`);
    }
  });
  return new Promise((resolve) => {
    const finish = (failure: string | null) => {
      for (const timer of timers) clearTimeout(timer);
      signalGroup(child.pid, 'SIGKILL');
      if (child.pid !== undefined) running.delete(child.pid);
      resolve({ rows, seconds: (performance.now() - started) / 1000, failure });
    };
    child.once('error', (error) => finish(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      if (overdue) finish(overdue);
      else if (code !== 0) finish(`exited with ${code ?? signal}`);
      else if (!sentRows) finish('exited without sending its figures');
      else finish(null);
    });
  });
}
