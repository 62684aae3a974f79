/**
 * Printing and hand-over of benchmark results. A benchmark prints its own table; when started by
 * bench/run.ts (over an IPC channel) it also sends its summary rows back for the final table.
 */

/**
 * `BENCH_SMOKE=1`: every benchmark runs one small round and sets no targets, so CI sees it start,
 * finish and clean up within its bound; its figures mean nothing.
 */
export const smoke = process.env.BENCH_SMOKE === '1';

/** `full` normally, `small` in smoke mode: the sizes of a benchmark's rounds. */
export const sized = <T>(full: T, small: T): T => (smoke ? small : full);

export interface SummaryRow {
  benchmark: string;
  ours: string;
  floor: string;
  ratio: number;
  /** e.g. '>= 0.5' or '<= 1.2' (on the ratio), '<= 120 MB' (on ours); null when there is no target. */
  target: string | null;
  /** Whether the target is met (null when there is none). Informational only: benchmarks never assert. */
  meets: boolean | null;
  /** Which way the ratio improves (`--against` reads it; smoke mode drops the target, not this). */
  better: 'higher' | 'lower';
}

/**
 * A row of the summary. The target is on the ratio (`atLeast`, `atMost`), or, for a benchmark whose
 * target is an absolute figure (e.g. idle RSS ≤ 120 MB), on our own value (`atMostValue`).
 */
export function summaryRow(
  benchmark: string,
  ours: string,
  floor: string,
  ratio: number,
  target?: { atLeast?: number; atMost?: number; atMostValue?: { value: number; limit: number; unit: string } },
): SummaryRow {
  let text: string | null = null;
  let meets: boolean | null = null;
  if (smoke) {
    // A smoke round is too small to hold a target.
  } else if (target?.atMostValue !== undefined) {
    const { value, limit, unit } = target.atMostValue;
    text = `<= ${limit} ${unit}`;
    meets = value <= limit;
  } else if (target?.atLeast !== undefined) {
    text = `>= ${target.atLeast}`;
    meets = ratio >= target.atLeast;
  } else if (target?.atMost !== undefined) {
    text = `<= ${target.atMost}`;
    meets = ratio <= target.atMost;
  }
  return {
    benchmark,
    ours,
    floor,
    ratio,
    target: text,
    meets,
    better: target?.atMost === undefined && target?.atMostValue === undefined ? 'higher' : 'lower',
  };
}

/** A plain-text table with right-aligned numbers. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map(
    (_, column) => rows.length > 0 && rows.every((row) => /^[-\d.,×x%<>= ]+$/.test(String(row[column] ?? ''))),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const fixed = (value: number, digits = 1) => value.toFixed(digits);

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Sends the summary rows to bench/run.ts when it started this process; a no-op otherwise. */
export async function handOver(rows: SummaryRow[]): Promise<void> {
  if (!process.send) return;
  await new Promise<void>((resolve) => process.send!({ rows } satisfies BenchmarkMessage, () => resolve()));
  process.disconnect();
}

/** What bench/run.ts hears from a benchmark over IPC. */
export type BenchmarkMessage = { boundSeconds: number } | { rows: SummaryRow[] };

/**
 * Runs a benchmark's main function within `boundSeconds` (give `sized(full, smoke)`): past it,
 * the benchmark says so and exits with status 1, and bench/run.ts, told the bound at the start,
 * stops a process that cannot even do that. A benchmark must close everything it opened and let
 * the process exit by itself; if something still holds it open 10 s later, that leak is reported
 * and the process exits with status 1 (the timer is unref'd, so it never keeps a clean process alive).
 */
export function runBenchmark(main: () => Promise<SummaryRow[]>, { boundSeconds }: { boundSeconds: number }): void {
  process.send?.({ boundSeconds } satisfies BenchmarkMessage);
  // Not unref'd: a benchmark stuck on a promise nothing will settle fails at its bound instead of exiting quietly.
  const bound = setTimeout(() => {
    console.error(`benchmark passed its time bound of ${boundSeconds} s${smoke ? ' (smoke mode)' : ''}; stopping it`);
    process.exit(1);
  }, boundSeconds * 1000);
  main()
    .finally(() => clearTimeout(bound))
    .then(handOver)
    .then(() => {
      setTimeout(() => {
        console.error('benchmark finished but the process is still held open by:', process.getActiveResourcesInfo());
        process.exit(1);
      }, 10_000).unref();
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
