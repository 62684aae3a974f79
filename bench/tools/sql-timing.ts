/**
 * Times every SQLite statement this process runs, by patching better-sqlite3's Statement methods:
 * import it before the app opens its database, then `sqlTimingReport(n)` prints the statements by
 * total time per unit of work (request, delivery), with their median and 90th percentile.
 */
import BetterSqlite3 from 'better-sqlite3';
import { percentile, table } from '../support/report.ts';

const timings = new Map<string, number[]>();

const probe = new BetterSqlite3(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
  string,
  (...args: unknown[]) => unknown
>;
probe.close();

for (const method of ['all', 'get', 'run'] as const) {
  const original = statementPrototype[method]!;
  statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const micros = Number(process.hrtime.bigint() - started) / 1000;
      // Keyed by the statement's own (interned) text; tidied only for the report.
      const key = `${method}: ${this.source}`;
      let list = timings.get(key);
      if (!list) timings.set(key, (list = []));
      list.push(micros);
    }
  };
}

export function resetSqlTiming() {
  timings.clear();
}

export function sqlTimingReport(units: number, top = 15): string {
  const rows = [...timings.entries()]
    .map(([statement, list]) => ({
      statement,
      list: list.sort((a, b) => a - b),
      total: list.reduce((sum, value) => sum + value, 0),
    }))
    .sort((a, b) => b.total - a.total)
    .slice(0, top);
  return table(
    ['µs per unit', 'runs', 'p50 µs', 'p90 µs', 'statement'],
    rows.map(({ statement, list, total }) => [
      (total / units).toFixed(1),
      String(list.length),
      percentile(list, 50).toFixed(0),
      percentile(list, 90).toFixed(0),
      statement.replace(/\s+/g, ' ').slice(0, 96),
    ]),
  );
}
