import { fixed, median, percentile, sized, summaryRow, table, type SummaryRow } from './report.ts';
import { runLoad, type LoadRequest } from './load.ts';

export const concurrency = 16;
/**
 * Each server is warmed up once, then the servers take turns for short slices whose order reverses
 * every slice. A shared machine's speed drifts over seconds (other tenants of the host), and
 * adjacent slices see nearly the same machine: ratios are taken slice by slice, their median the
 * figure, so a slow second that fell on one server's slice does not decide it.
 */
const warmUp = { warmupMs: 0, durationMs: sized(2_000, 200) };
const slices = sized(8, 1);
const slice = sized({ warmupMs: 250, durationMs: 1_000 }, { warmupMs: 200, durationMs: 500 });
const measuredSeconds = (slices * slice.durationMs) / 1000;

export interface Measured {
  perSecond: number;
  /** Each slice's rate, in slice order: what `sliceRatio` compares. */
  slicePerSecond: number[];
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
  for (const r of results)
    for (const [status, count] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const seconds = results.reduce((total, r) => total + r.seconds, 0);
  const weighted = (pick: (r: (typeof results)[number]) => number) =>
    results.reduce((total, r) => total + pick(r) * r.seconds, 0) / seconds;
  return {
    perSecond: latencies.length / seconds,
    slicePerSecond: results.map((r) => r.perSecond),
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN },
    statuses,
    bytesPerResponse: weighted((r) => r.bytesPerResponse),
    serverCpu: weighted((r) => r.serverCpu),
    clientCpu: weighted((r) => r.clientCpu),
  };
}

/** Loads each server in turn, slice after slice, with the same requests; every total covers the same measured time. */
export async function compareThroughput<Name extends string>(
  origins: Record<Name, string>,
  requests: LoadRequest[],
): Promise<Record<Name, Measured>> {
  const names = Object.keys(origins) as Name[];
  for (const name of names) await runLoad({ origin: origins[name], requests, concurrency, ...warmUp });
  const results = new Map<Name, Array<Awaited<ReturnType<typeof runLoad>>>>(names.map((name) => [name, []]));
  for (let index = 0; index < slices; index++) {
    for (const name of index % 2 === 0 ? names : [...names].reverse())
      results.get(name)!.push(await runLoad({ origin: origins[name], requests, concurrency, ...slice }));
  }
  return Object.fromEntries(names.map((name) => [name, combine(results.get(name)!)])) as Record<Name, Measured>;
}

/** `a`'s rate over `b`'s: the median over slices of the two servers' rates in the same slice. */
export const sliceRatio = (a: Measured, b: Measured) =>
  median(a.slicePerSecond.map((rate, index) => rate / b.slicePerSecond[index]!));

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
  `load: ${concurrency} concurrent requests over keep-alive from a separate process; each server warmed up for ${warmUp.durationMs / 1000} s, then ` +
  `${slices} slices of ${slice.warmupMs / 1000} s warm-up + ${slice.durationMs / 1000} s, the servers taking turns in an order reversed every slice, ${measuredSeconds} s measured each; ` +
  `ratios are medians of the slices' ratios; CPU = cores used over the measured windows (a client near 100% means that server was not saturated).`;

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
  console.log(
    throughputTable([
      ['bare h3 (floor)', measured.floor],
      [`bare h3 + same ${work} work`, measured.sameWork],
      ['visualizer', measured.ours],
    ]),
  );
  const ratio = sliceRatio(measured.ours, measured.floor);
  const ceiling = sliceRatio(measured.sameWork, measured.floor);
  const ofCeiling = sliceRatio(measured.ours, measured.sameWork);
  const targetText = target === undefined ? '' : ` (target >= ${target})`;
  console.log(
    `ratio visualizer/same work: ${fixed(ofCeiling, 2)}${targetText}; visualizer/floor: ${fixed(ratio, 2)}; same work/floor: ${fixed(ceiling, 2)}`,
  );
  const [floorRate, sameWorkRate, ourRate] = [measured.floor, measured.sameWork, measured.ours].map((m) =>
    fixed(m.perSecond, 0),
  ) as [string, string, string];
  return [
    summaryRow(
      `${label}: visualizer vs bare h3 + same ${work} work (req/s)`,
      ourRate,
      sameWorkRate,
      ofCeiling,
      target === undefined ? undefined : { atLeast: target },
    ),
    summaryRow(`${label}: visualizer vs floor (req/s)`, ourRate, floorRate, ratio),
    summaryRow(`${label}: bare h3 + same ${work} work vs floor (req/s)`, sameWorkRate, floorRate, ceiling),
  ];
}
