/**
 * Where an API request's time goes: runs the create or get load (as bench/create.ts and
 * bench/get.ts do) with the V8 profiler on for the measured part only, then prints the main
 * thread's busy time per request by package/file (native frames are charged to their JS caller).
 *
 *   node --import tsx bench/tools/api-profile.ts create
 *   node --import tsx bench/tools/api-profile.ts create --sql        # and time each SQLite statement
 *   node --import tsx bench/tools/api-profile.ts create --postgres   # on a throwaway Postgres cluster
 *
 * `--save FILE` keeps the .cpuprofile (open it in Chrome DevTools).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { summarizeProfile, type CpuProfile } from './cpu-profile.ts';

const mode = process.argv[2];
if (mode !== 'create' && mode !== 'get') {
  console.error('usage: api-profile.ts create|get [--sql] [--postgres] [--save FILE]');
  process.exit(2);
}
const save = process.argv.includes('--save') ? process.argv[process.argv.indexOf('--save') + 1] : undefined;

// `--sql`: time each SQLite statement too (see sql-timing.ts); it must patch before the app opens its database.
const sqlTiming = process.argv.includes('--sql') ? await import('./sql-timing.ts') : undefined;

// Imported after the patch, so the app's database connection gets it.
const { startBenchApp } = await import('../support/app.ts');
const { runLoad } = await import('../support/load.ts');
const { createLoad, readLoad } = await import('../support/api-loads.ts');

// `--postgres`: the app on a throwaway cluster (test/support/postgres-server.ts) instead of SQLite.
const postgres = process.argv.includes('--postgres')
  ? await (await import('../../test/support/postgres-server.ts')).startPostgresTestServer()
  : undefined;
const bench = await startBenchApp(postgres ? { config: { databaseUrl: await postgres.createDatabase() } } : {});
try {
  const { requests } = mode === 'create' ? await createLoad(bench) : await readLoad(bench);
  await runLoad({ origin: bench.app.url, requests, concurrency: 16, warmupMs: 0, durationMs: 2_000 });

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  sqlTiming?.resetSqlTiming();
  const result = await runLoad({ origin: bench.app.url, requests, concurrency: 16, warmupMs: 0, durationMs: 6_000 });
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  if (save) writeFileSync(save, JSON.stringify(profile));

  const served = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  console.log(
    `${mode}: ${result.perSecond.toFixed(0)} req/s, ` +
      `server CPU ${(result.serverCpu * 100).toFixed(0)}% = ${((result.serverCpu * 1e6) / result.perSecond).toFixed(0)} µs per request, statuses ${JSON.stringify(result.statuses)}`,
  );
  console.log(summarizeProfile(profile as CpuProfile, served, 30));
  if (sqlTiming) console.log(`\nSQLite statements:\n${sqlTiming.sqlTimingReport(served)}`);
} finally {
  await bench.close();
  await postgres?.stop();
}
