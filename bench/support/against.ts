import { fixed, median, table, type SummaryRow } from './report.ts';

/** One benchmark's summary rows from each build, a list per round. */
export interface AgainstRuns {
  name: string;
  old: SummaryRow[][];
  new: SummaryRow[][];
}

/** The leading number of a figure such as `5020` or `276.4 ms`. */
const leadingNumber = (text: string) => Number.parseFloat(text);

/**
 * The `--against` table: per figure, each build's ratio (against its floor or ceiling, measured in
 * the same run) and ours, as medians over the rounds, and new/old of both. `verdict` reads the
 * ratio's new/old in the figure's direction; within ±3 % it says nothing.
 */
export function againstTable(runs: AgainstRuns[]): string {
  const lines: Array<Array<string | number>> = [];
  for (const { name, old, new: current } of runs) {
    const labels = [...new Set([...old.flat(), ...current.flat()].map((row) => row.benchmark))];
    if (!labels.length) lines.push([name, '-', '-', '-', '-', '-', '-', 'no figures']);
    for (const label of labels) {
      const pick = (rounds: SummaryRow[][]) => rounds.flat().filter((row) => row.benchmark === label);
      const [before, after] = [pick(old), pick(current)];
      const ratio = (rows: SummaryRow[]) => (rows.length ? median(rows.map((row) => row.ratio)) : NaN);
      const ours = (rows: SummaryRow[]) => (rows.length ? median(rows.map((row) => leadingNumber(row.ours))) : NaN);
      const change = ratio(after) / ratio(before);
      const better = (after[0] ?? before[0]!).better;
      const verdict = !Number.isFinite(change)
        ? '-'
        : Math.abs(change - 1) <= 0.03
          ? 'same'
          : change > 1 === (better === 'higher')
            ? 'better'
            : 'WORSE';
      const show = (value: number, digits: number) => (Number.isFinite(value) ? fixed(value, digits) : '-');
      lines.push([
        label,
        show(ratio(before), 2),
        show(ratio(after), 2),
        show(change, 3),
        show(ours(before), 1),
        show(ours(after), 1),
        show(ours(after) / ours(before), 3),
        `${verdict} (${better} is better)`,
      ]);
    }
  }
  return table(
    ['figure', 'old ratio', 'new ratio', 'new/old', 'old ours', 'new ours', 'ours new/old', 'verdict'],
    lines,
  );
}
