import { fixed, percentile, sized, summaryRow, table, type SummaryRow } from './report.ts';
import { runLoad, type LoadRequest } from './load.ts';

export const concurrency = 16;
/** The servers alternate, so drift on a shared machine (other processes, thermal) hits both alike. */
const rounds = sized(
  [
    { warmupMs: 2_000, durationMs: 4_000 },
    { warmupMs: 500, durationMs: 4_000 },
  ],
  [{ warmupMs: 200, durationMs: 500 }],
);
const measuredSeconds = rounds.reduce((total, round) => total + round.durationMs, 0) / 1000;

export interface Measured {
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  statuses: Record<string, number>;
  bytesPerResponse: number;
  /** Cores used over the measured windows: the server process (this one) and the load client. */
  serverCpu: number;
  clientCpu: number;
}

function combine(results: Array<Awaited<ReturnType<typeof runLoad>>>): Measured {
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [status, count] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const seconds = results.reduce((total, r) => total + r.seconds, 0);
  const weighted = (pick: (r: (typeof results)[number]) => number) => results.reduce((total, r) => total + pick(r) * r.seconds, 0) / seconds;
  return {
    perSecond: latencies.length / seconds,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN },
    statuses,
    bytesPerResponse: weighted((r) => r.bytesPerResponse),
    serverCpu: weighted((r) => r.serverCpu),
    clientCpu: weighted((r) => r.clientCpu),
  };
}

/** Loads each server in turn, round after round, with the same requests; every total covers the same measured time. */
export async function compareThroughput<Name extends string>(origins: Record<Name, string>, requests: LoadRequest[]): Promise<Record<Name, Measured>> {
  const names = Object.keys(origins) as Name[];
  const results = new Map<Name, Array<Awaited<ReturnType<typeof runLoad>>>>(names.map((name) => [name, []]));
  for (const round of rounds) {
    for (const name of names) results.get(name)!.push(await runLoad({ origin: origins[name], requests, concurrency, ...round }));
  }
  return Object.fromEntries(names.map((name) => [name, combine(results.get(name)!)])) as Record<Name, Measured>;
}

const statusText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');

/** The table both API throughput benchmarks print. */
export function throughputTable(rows: Array<[label: string, result: Measured]>): string {
  return table(
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'resp bytes', 'server CPU', 'client CPU', 'statuses'],
    rows.map(([label, r]) => [
      label,
      fixed(r.perSecond, 0),
      fixed(r.latencyMs.p50, 2),
      fixed(r.latencyMs.p99, 2),
      fixed(r.latencyMs.max, 1),
      fixed(r.bytesPerResponse, 0),
      `${fixed(r.serverCpu * 100, 0)}%`,
      `${fixed(r.clientCpu * 100, 0)}%`,
      statusText(r.statuses),
    ]),
  );
}

export const setupLine = () =>
  `load: ${concurrency} concurrent requests over keep-alive from a separate process; the servers alternate in ${rounds.length} rounds ` +
  `(${rounds.map((r) => `${r.warmupMs / 1000} s warm-up + ${r.durationMs / 1000} s`).join(', ')}), ${measuredSeconds} s measured each; ` +
  `CPU = cores used over the measured windows (a client near 100% means that server was not saturated).`;

/**
 * Loads the floor, the same-work ceiling and ours in turn with `requests`, prints their table and
 * the three ratios, and returns the summary rows. `work` names the ceiling's database; `target` is
 * ours/same work's: what is ours to improve, whatever the database's own cost on this machine.
 */
export async function throughputAgainstCeiling(options: {
  label: string;
  describe: string;
  work: 'SQLite' | 'Postgres';
  target?: number;
  urls: { floor: string; sameWork: string; ours: string };
  requests: LoadRequest[];
}): Promise<SummaryRow[]> {
  const { label, work, target } = options;
  console.log(options.describe);
  console.log(setupLine());
  const measured = await compareThroughput(options.urls, options.requests);
  console.log(throughputTable([
    ['bare h3 (floor)', measured.floor],
    [`bare h3 + same ${work} work`, measured.sameWork],
    ['visualizer', measured.ours],
  ]));
  const ratio = measured.ours.perSecond / measured.floor.perSecond;
  const ceiling = measured.sameWork.perSecond / measured.floor.perSecond;
  const ofCeiling = measured.ours.perSecond / measured.sameWork.perSecond;
  const targetText = target === undefined ? '' : ` (target >= ${target})`;
  console.log(`ratio visualizer/same work: ${fixed(ofCeiling, 2)}${targetText}; visualizer/floor: ${fixed(ratio, 2)}; same work/floor: ${fixed(ceiling, 2)}`);
  const [floorRate, sameWorkRate, ourRate] = [measured.floor, measured.sameWork, measured.ours].map((m) => fixed(m.perSecond, 0)) as [string, string, string];
  return [
    summaryRow(`${label}: visualizer vs bare h3 + same ${work} work (req/s)`, ourRate, sameWorkRate, ofCeiling, target === undefined ? undefined : { atLeast: target }),
    summaryRow(`${label}: visualizer vs floor (req/s)`, ourRate, floorRate, ratio),
    summaryRow(`${label}: bare h3 + same ${work} work vs floor (req/s)`, sameWorkRate, floorRate, ceiling),
  ];
}
