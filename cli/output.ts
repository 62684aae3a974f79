/** Where a command writes: stdout for results (so `--json` can be piped), stderr for everything else. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Prints rows as aligned columns, or as JSON when asked. */
export function printRecords(
  output: Output,
  json: boolean,
  records: Array<Record<string, unknown>>,
  columns: string[],
) {
  if (json) return output.out(JSON.stringify(records, null, 2));
  if (records.length === 0) return output.out('(none)');
  const cells = [columns, ...records.map((record) => columns.map((column) => String(record[column] ?? '')))];
  const widths = columns.map((_, index) => Math.max(...cells.map((row) => row[index]!.length)));
  for (const row of cells)
    output.out(
      row
        .map((cell, index) => cell.padEnd(widths[index]!))
        .join('  ')
        .trimEnd(),
    );
}
