import type { Clock } from '../ports/clock.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Persistence } from '../ports/persistence/index.ts';
import type { DeadJob } from '../ports/queue-tables/index.ts';

/**
 * Dead letters for operators (`visualizer jobs dead|retry`): jobs the queue gave up after
 * `maxAttempts` failures, listed, and retried on demand.
 */
export function deadLetters(deps: { persistence: Persistence; queue: JobQueue; clock: Clock }) {
  const { persistence, queue, clock } = deps;
  return {
    list: (options: { kind?: string; limit: number }) => queue.deadLetters.list(options),

    /**
     * Queues the chosen dead jobs again, due now, with their attempts and failures starting over;
     * each leaves the dead letters in the same transaction as it is enqueued, so a retry that fails
     * leaves it dead rather than lost. Resolves to the jobs retried (the queue gives them new ids).
     */
    async retry(filter: { id?: string; kind?: string }): Promise<DeadJob[]> {
      const now = clock.now();
      const retried = await persistence.transaction(async (tx) => {
        const taken = await queue.deadLetters.take(tx, filter);
        for (const job of taken)
          await queue.enqueue(tx, { kind: job.kind, payload: job.payload, runAt: now, createdAt: now });
        return taken;
      });
      if (retried.length > 0) queue.notify();
      return retried;
    },
  };
}
