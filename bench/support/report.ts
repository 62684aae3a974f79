/**
 * Printing and hand-over of benchmark results. A benchmark prints its own table; when started by
 * bench/run.ts (over an IPC channel) it also sends its summary rows back for the final table.
 */

export interface SummaryRow {
  benchmark: string;
  ours: string;
  floor: string;
  ratio: number;
  /** e.g. '>= 0.5' or '<= 1.2'; null when there is no target. */
  target: string | null;
  /** Whether the ratio meets the target (null when there is none). Informational only: benchmarks never assert. */
  meets: boolean | null;
}

export function summaryRow(benchmark: string, ours: string, floor: string, ratio: number, target?: { atLeast?: number; atMost?: number }): SummaryRow {
  let text: string | null = null;
  let meets: boolean | null = null;
  if (target?.atLeast !== undefined) {
    text = `>= ${target.atLeast}`;
    meets = ratio >= target.atLeast;
  } else if (target?.atMost !== undefined) {
    text = `<= ${target.atMost}`;
    meets = ratio <= target.atMost;
  }
  return { benchmark, ours, floor, ratio, target: text, meets };
}

/** A plain-text table with right-aligned numbers. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => /^[-\d.,×x%<>= ]+$/.test(String(row[column] ?? ''))));
  const line = (row: string[]) =>
    row.map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd();
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
  await new Promise<void>((resolve) => process.send!({ rows }, () => resolve()));
  process.disconnect();
}

/**
 * Runs a benchmark's main function. A benchmark must close everything it opened and let the
 * process exit by itself; if something still holds it open 10 s later, that leak is reported and
 * the process exits with status 1 (the timer is unref'd, so it never keeps a clean process alive).
 */
export function runBenchmark(main: () => Promise<SummaryRow[]>): void {
  main()
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
