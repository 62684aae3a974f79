import { startWorkers } from '../../core/lifecycle.ts';
import { emitEvent } from '../../core/services/webhook-delivery.ts';
import { startHttpsServer } from '../../test/support/https-server.ts';
import { startBenchApp } from './app.ts';

/**
 * What bench/deliver.ts and tools/deliver-profile.ts share: a loopback HTTPS receiver answering 204,
 * the app with `concurrency` delivery slots and one endpoint subscribed to every event, and rounds
 * of deliveries: `fill` writes the events and their deliveries to the outbox in one transaction
 * (not measured) and returns `drain`, which wakes the workers and resolves once the receiver has had
 * them all.
 */
export async function startOutboxBench(concurrency: number) {
  let received = 0;
  let onReceived = () => {};
  const receiver = await startHttpsServer((_req, res) => {
    received += 1;
    onReceived();
    res.writeHead(204).end();
  });
  const bench = await startBenchApp({ config: { webhooks: { deliveryConcurrency: concurrency, maxConcurrentPerEndpoint: concurrency }, workers: { concurrency: 1 } } });
  const { cradle } = bench.app.container;
  const organizationId = (await cradle.persistence.organizations.list()).at(-1)!.id;
  await cradle.webhookEndpoints.create(organizationId, { url: `${receiver.url}/hook`, enabledEvents: ['*'] });
  const body = JSON.stringify({ id: 'evt_x', type: 'generation.completed', createdAt: new Date().toISOString(), data: { id: 'agen_x', padding: 'x'.repeat(900) } });

  return {
    receiver,
    /** The event body every delivery sends (the floor sends the same). */
    body,
    startWorkers: () => startWorkers(cradle),
    async fill(count: number): Promise<() => Promise<void>> {
      received = 0;
      const drained = new Promise<void>((resolve) => (onReceived = () => received >= count && resolve()));
      await cradle.persistence.transaction(async (tx) => {
        for (let i = 0; i < count; i++) {
          await emitEvent(tx, cradle, { id: cradle.ids.id('evt_'), organizationId, type: 'generation.completed', body, createdAt: cradle.clock.now() });
        }
      });
      return () => {
        cradle.queue.notify();
        return drained;
      };
    },
    async close() {
      await bench.close();
      await receiver.close();
    },
  };
}
