import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorkers } from '../../core/lifecycle.ts';
import { emitEvent } from '../../core/services/webhook-delivery.ts';
import { startHttpsServer } from '../../test/support/https-server.ts';
import { startBenchApp } from './app.ts';

/** A round with no delivery received for this long has stalled. */
const stallMs = 5_000;

/**
 * What bench/deliver.ts and tools/deliver-profile.ts share: a loopback HTTPS receiver answering 204,
 * the app with `concurrency` delivery slots and one endpoint subscribed to every event, and rounds
 * of deliveries: `fill` writes the events and their deliveries to the outbox in one transaction
 * (not measured) and returns `drain`, which wakes the workers and resolves once the receiver has had
 * them all, or rejects once none has arrived for `stallMs`, naming a failed attempt.
 */
export async function startOutboxBench(concurrency: number) {
  let received = 0;
  let onReceived = () => {};
  const receiver = await startHttpsServer((_req, res) => {
    received += 1;
    onReceived();
    res.writeHead(204).end();
  });
  const bench = await startBenchApp({
    config: {
      webhooks: { deliveryConcurrency: concurrency, maxConcurrentPerEndpoint: concurrency },
      workers: { concurrency: 1 },
    },
  });
  const { cradle } = bench.app.container;
  const organizationId = (await cradle.persistence.organizations.list()).at(-1)!.id;
  await cradle.webhookEndpoints.create(organizationId, { url: `${receiver.url}/hook`, enabledEvents: ['*'] });
  const body = JSON.stringify({
    id: 'evt_x',
    type: 'generation.completed',
    createdAt: new Date().toISOString(),
    data: { id: 'agen_x', padding: 'x'.repeat(900) },
  });

  return {
    receiver,
    /** The event body every delivery sends (the floor sends the same). */
    body,
    startWorkers: () => startWorkers(cradle),
    async fill(count: number): Promise<() => Promise<void>> {
      received = 0;
      let lastReceivedAt = performance.now();
      // This round's own: `received` starts again at the next fill, while this round's watch may still sleep.
      let finished = false;
      const drained = new Promise<void>((resolve) => {
        onReceived = () => {
          lastReceivedAt = performance.now();
          if (received >= count) {
            finished = true;
            resolve();
          }
        };
      });
      const eventIds: string[] = [];
      await cradle.persistence.transaction(async (tx) => {
        for (let i = 0; i < count; i++) {
          eventIds.push(cradle.ids.id('evt_'));
          await emitEvent(tx, cradle, {
            id: eventIds.at(-1)!,
            organizationId,
            type: 'generation.completed',
            body,
            createdAt: cradle.clock.now(),
          });
        }
      });
      // A round that stops receiving fails with what the attempts say, rather than waiting on retries.
      const stalled = async () => {
        for (;;) {
          await sleep(1_000);
          if (finished) return;
          if (performance.now() - lastReceivedAt < stallMs) continue;
          const attempts = (
            await Promise.all(eventIds.slice(0, 50).map((id) => cradle.persistence.deliveries.attemptsForEvent(id)))
          ).flat();
          const failed = attempts.find((attempt) => attempt.error !== null || attempt.statusCode !== 204);
          throw new Error(
            `deliveries stalled: ${received} of ${count} received, none for ${stallMs / 1000} s` +
              (failed
                ? `; an attempt failed: ${failed.error ?? `HTTP ${failed.statusCode}`}`
                : `; ${attempts.length} attempts of the first 50 events, none failed`),
          );
        }
      };
      return () => {
        cradle.queue.notify();
        return Promise.race([drained, stalled()]);
      };
    },
    async close() {
      await bench.close();
      await receiver.close();
    },
  };
}
