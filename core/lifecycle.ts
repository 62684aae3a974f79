import type { AwilixContainer } from 'awilix';
import type { Cradle } from './cradle.ts';
import { renderJobKind } from './services/generations.ts';

/** Starts this process's render workers (none when `workers.concurrency` is 0). */
export async function startWorkers(cradle: Cradle): Promise<number> {
  const { concurrency } = cradle.config.workers;
  if (concurrency > 0) await cradle.queue.work({ [renderJobKind]: cradle.renderGeneration }, { concurrency });
  return concurrency;
}

/**
 * Stops in dependency order: workers finish their jobs while the database is still open, then
 * everything else is disposed (awilix disposes all singletons at once, not in order).
 */
export async function shutdown(container: AwilixContainer<Cradle>): Promise<void> {
  if (container.cache.has('queue')) await container.cradle.queue.stop();
  await container.dispose();
}
