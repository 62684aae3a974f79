import type { AwilixContainer } from 'awilix';
import type { Cradle } from './cradle.ts';
import { instrumentHandlers } from './metrics/jobs.ts';
import type { ReportingJobHandler } from './metrics/job-outcome.ts';
import { oncePerCluster } from './services/cluster-schedule.ts';
import { purgeImagesJobKind } from './services/generation-deletion.ts';
import { renderJobKind } from './services/generations.ts';
import { renderRetentionSweep, retentionSweep } from './services/retention.ts';
import { strayImagesJobKind } from './services/stray-images.ts';
import { uploadSweep } from './services/upload-sweep.ts';
import { eraseVisitorJobKind } from './services/visitors.ts';
import { deliverJobKind } from './services/webhook-delivery.ts';

/**
 * Starts this process's workers (none when `workers.concurrency` is 0): renders (and the deletion
 * of images a crashed render left, of deleted generations' images, and visitors' erasures), and webhook deliveries in a lane of their own so a queue of
 * slow renders never holds events back.
 */
export async function startWorkers(cradle: Cradle): Promise<number> {
  const { concurrency } = cradle.config.workers;
  if (concurrency === 0) return 0;
  // Every run is counted and timed by kind and outcome (see instrumentHandlers).
  const instrument = (handlers: Record<string, ReportingJobHandler>) =>
    instrumentHandlers(handlers, { metrics: cradle.metrics, logger: cradle.logger, isUnavailable: (error) => cradle.persistence.isUnavailable(error) });
  await cradle.queue.work(
    instrument({
      [renderJobKind]: cradle.renderGeneration,
      [strayImagesJobKind]: cradle.sweepStrayImages,
      [purgeImagesJobKind]: cradle.purgeGenerationImages,
      [eraseVisitorJobKind]: cradle.eraseVisitor,
    }),
    { concurrency },
  );
  await cradle.queue.work(instrument({ [deliverJobKind]: cradle.deliverWebhook }), { concurrency: cradle.config.webhooks.deliveryConcurrency });
  return concurrency;
}

/**
 * Periodic sweeps: due work a missed signal left waiting, endpoints failing for too long, photos a
 * crash left behind, rows past their retention. Every process with workers runs the scheduler; the
 * sweeps of shared data run once per interval in the whole cluster (oncePerCluster), waking this
 * process's own idle workers runs in each.
 */
export async function startScheduler(cradle: Cradle): Promise<void> {
  const { scheduler, queue, persistence, clock, config, logger } = cradle;
  const sweepUploads = uploadSweep(cradle);
  const sweepRetention = retentionSweep(cradle);
  const sweepRenders = renderRetentionSweep(cradle);
  const cluster = (task: Parameters<typeof oncePerCluster>[1]) => oncePerCluster(persistence, task);
  await scheduler.start([
    cluster({ name: 'sweep-uploads', intervalMs: config.uploads.sweepIntervalMs, run: async () => void (await sweepUploads()) }),
    { name: 'wake-due-jobs', intervalMs: config.webhooks.sweepIntervalMs, run: async () => queue.notify() },
    cluster({
      name: 'prune-retention',
      intervalMs: config.retention.sweepIntervalMs,
      run: async () => {
        // Each sweep has its own failure: rows the first could not prune never hold back expired renders.
        for (const [sweep, run] of [['rows', sweepRetention], ['renders', sweepRenders]] as const) {
          await run().catch((error: unknown) => logger.error('retention sweep failed; it runs again at the next interval', { sweep, error: error instanceof Error ? error.stack : String(error) }));
        }
      },
    }),
    cluster({
      name: 'disable-failing-endpoints',
      intervalMs: config.webhooks.sweepIntervalMs,
      run: async () => {
        const now = clock.now();
        const disabled = await persistence.webhookEndpoints.disableFailingSince(now - config.webhooks.disableAfterFailingMs, 'failing', now);
        for (const endpointId of disabled) logger.warn('webhook endpoint disabled: every delivery failed for too long', { endpointId });
      },
    }),
  ]);
}

/**
 * Stops in dependency order: workers finish their jobs while the database is still open, then
 * the container disposes the rest (see createKernel). Jobs still running after
 * `shutdownTimeoutMs` are aborted and released to other workers.
 */
export async function shutdown(container: AwilixContainer<Cradle>): Promise<void> {
  await container.cradle.scheduler.stop();
  await container.cradle.queue.stop(container.cradle.config.shutdownTimeoutMs);
  await container.dispose();
}
