/**
 * Where a webhook delivery's time goes: drains the outbox to a loopback HTTPS receiver as
 * bench/deliver.ts does (receiver and workers in this process), with the V8 profiler on for one
 * measured round, then prints main-thread time per delivery by package/file and the SQLite
 * statements by time per delivery.
 *
 *   node --import tsx bench/tools/deliver-profile.ts
 *   node --import tsx bench/tools/deliver-profile.ts --save /tmp/deliver.cpuprofile
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
// Before anything opens a database, so every statement is timed.
import { resetSqlTiming, sqlTimingReport } from './sql-timing.ts';
import { startWorkers } from '../../core/lifecycle.ts';
import { emitEvent } from '../../core/services/webhook-delivery.ts';
import { startHttpsServer } from '../../test/support/https-server.ts';
import { startBenchApp } from '../support/app.ts';
import { summarizeProfile, type CpuProfile } from './cpu-profile.ts';

const concurrency = 16;
const events = 2_000;
const save = process.argv.includes('--save') ? process.argv[process.argv.indexOf('--save') + 1] : undefined;

let received = 0;
let onReceived = () => {};
const receiver = await startHttpsServer((_req, res) => {
  received += 1;
  onReceived();
  res.writeHead(204).end();
});
const bench = await startBenchApp({ config: { webhooks: { deliveryConcurrency: concurrency, maxConcurrentPerEndpoint: concurrency }, workers: { concurrency: 1 } } });
try {
  const { cradle } = bench.app.container;
  const organizationId = (await cradle.persistence.organizations.list()).at(-1)!.id;
  await cradle.webhookEndpoints.create(organizationId, { url: `${receiver.url}/hook`, enabledEvents: ['*'] });
  const body = JSON.stringify({ id: 'evt_x', type: 'generation.completed', createdAt: new Date().toISOString(), data: { id: 'agen_x', padding: 'x'.repeat(900) } });
  await startWorkers(cradle);

  /** Fills the outbox (not measured), then times draining it. */
  const round = async (count: number, measure: (drained: Promise<void>) => Promise<void> = (drained) => drained) => {
    received = 0;
    const drained = new Promise<void>((resolve) => (onReceived = () => received >= count && resolve()));
    await cradle.persistence.transaction(async (tx) => {
      for (let i = 0; i < count; i++) await emitEvent(tx, cradle, { id: cradle.ids.id('evt_'), organizationId, type: 'generation.completed', body, createdAt: cradle.clock.now() });
    });
    cradle.queue.notify();
    await measure(drained);
  };
  await round(500);
  await round(events);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  let seconds = 0;
  let cpu: NodeJS.CpuUsage | undefined;
  await round(events, async (drained) => {
    resetSqlTiming();
    await session.post('Profiler.start');
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    await drained;
    seconds = (performance.now() - started) / 1000;
    cpu = process.cpuUsage(cpuFrom);
  });
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  if (save) writeFileSync(save, JSON.stringify(profile));

  const cpuSeconds = (cpu!.user + cpu!.system) / 1e6;
  console.log(`deliver: ${(events / seconds).toFixed(0)} deliveries/s, process CPU ${((cpuSeconds / seconds) * 100).toFixed(0)}% (receiver included)`);
  console.log(summarizeProfile(profile as CpuProfile, events, 30));
  console.log('\nSQLite statements (the outbox fill before the measured drain is not counted):');
  console.log(sqlTimingReport(events));
} finally {
  await bench.close();
  await receiver.close();
}
