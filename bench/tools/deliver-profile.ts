/**
 * Where a webhook delivery's time goes: drains the outbox to a loopback HTTPS receiver as
 * bench/deliver.ts does (receiver and workers in this process), with the V8 profiler on for one
 * measured round, then prints main-thread time per delivery by package/file, and with `--sql` the
 * SQLite statements by time per delivery (timing them costs time of its own).
 *
 *   node --import tsx bench/tools/deliver-profile.ts
 *   node --import tsx bench/tools/deliver-profile.ts --sql --save /tmp/deliver.cpuprofile
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { summarizeProfile, type CpuProfile } from './cpu-profile.ts';

// `--sql`: before anything opens a database, so every statement is timed.
const sqlTiming = process.argv.includes('--sql') ? await import('./sql-timing.ts') : undefined;
const { startOutboxBench } = await import('../support/outbox.ts');

const concurrency = 16;
const events = 2_000;
const save = process.argv.includes('--save') ? process.argv[process.argv.indexOf('--save') + 1] : undefined;

const outbox = await startOutboxBench(concurrency);
try {
  await outbox.startWorkers();
  // Warm-up rounds, not measured.
  for (const count of [500, events]) await (await outbox.fill(count))();

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const drain = await outbox.fill(events);
  sqlTiming?.resetSqlTiming();
  await session.post('Profiler.start');
  const cpuFrom = process.cpuUsage();
  const started = performance.now();
  await drain();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuFrom);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  if (save) writeFileSync(save, JSON.stringify(profile));

  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `deliver: ${(events / seconds).toFixed(0)} deliveries/s, process CPU ${((cpuSeconds / seconds) * 100).toFixed(0)}% (receiver included)`,
  );
  console.log(summarizeProfile(profile as CpuProfile, events, 30));
  if (sqlTiming) {
    console.log('\nSQLite statements (the outbox fill before the measured drain is not counted):');
    console.log(sqlTiming.sqlTimingReport(events));
  }
} finally {
  await outbox.close();
}
