/**
 * Webhook delivery throughput: signed deliveries per second from the outbox (queue claim, event
 * and endpoint reads, signing, the guarded HTTPS client, attempt log and status in one
 * transaction) to a loopback HTTPS receiver, against the floor: a bare keep-alive POST loop with
 * the same concurrency and body to the same receiver, in the same run.
 *
 *   node --import tsx bench/deliver.ts
 */
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { startWorkers } from '../core/lifecycle.ts';
import { emitEvent } from '../core/services/webhook-delivery.ts';
import { startHttpsServer, testCertificates } from '../test/support/https-server.ts';
import { startBenchApp } from './support/app.ts';
import { fixed, runBenchmark, summaryRow, table, type SummaryRow } from './support/report.ts';

const target = 0.5;
/** Per measured round; floor and ours alternate for `rounds` rounds, so drift on a shared machine hits both alike. */
const events = 2_000;
const rounds = Number(process.env.BENCH_DELIVER_ROUNDS ?? 3);
const concurrency = 16;
/** Both sides first send this many, so neither is measured cold (TLS handshakes, JIT). */
const warmUp = 500;

async function main(): Promise<SummaryRow[]> {
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

    // Floor: the receiver as fast as a plain keep-alive client can feed it.
    const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: (await testCertificates()).caPem });
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const request = https.request(`${receiver.url}/floor`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
          response.resume();
          response.on('end', resolve);
        });
        request.on('error', reject);
        request.end(body);
      });
    const floorRound = async (count: number) => {
      let sent = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (sent < count) {
          sent += 1;
          await post();
        }
      }));
      return (performance.now() - started) / 1000;
    };
    // Ours: the events and their deliveries are in the outbox, then the workers drain it.
    await startWorkers(cradle);
    const oursRound = async (count: number) => {
      received = 0;
      const done = new Promise<void>((resolve) => (onReceived = () => received >= count && resolve()));
      await cradle.persistence.transaction(async (tx) => {
        for (let i = 0; i < count; i++) {
          await emitEvent(tx, cradle, { id: cradle.ids.id('evt_'), organizationId, type: 'generation.completed', body, createdAt: cradle.clock.now() });
        }
      });
      // Timed from the commit: what is measured is draining the outbox, not filling it.
      const started = performance.now();
      cradle.queue.notify();
      await done;
      return (performance.now() - started) / 1000;
    };
    await floorRound(warmUp);
    await oursRound(warmUp);
    let floorSeconds = 0;
    let oursSeconds = 0;
    for (let round = 0; round < rounds; round++) {
      floorSeconds += await floorRound(events);
      oursSeconds += await oursRound(events);
    }
    agent.destroy();

    const floorRate = (events * rounds) / floorSeconds;
    const oursRate = (events * rounds) / oursSeconds;
    const ratio = oursRate / floorRate;
    console.log(
      `deliver: ${rounds} rounds of ${events} signed deliveries each (after ${warmUp} to warm up), floor and ours alternating, ` +
        `${concurrency} at a time, to a loopback HTTPS receiver (SQLite outbox, timed from its commit)`,
    );
    console.log(table(['sender', 'deliveries/s', 'seconds'], [
      ['bare keep-alive POST loop (floor)', fixed(floorRate, 0), fixed(floorSeconds, 2)],
      ['visualizer outbox → receiver', fixed(oursRate, 0), fixed(oursSeconds, 2)],
    ]));
    console.log(`ratio visualizer/floor: ${fixed(ratio, 2)} (target >= ${target})`);
    return [summaryRow('deliver webhooks (deliveries/s)', fixed(oursRate, 0), fixed(floorRate, 0), ratio, { atLeast: target })];
  } finally {
    await bench.close();
    await receiver.close();
  }
}

runBenchmark(main);
