import type { Clock } from '../../core/ports/clock.ts';
import type { IdGenerator } from '../../core/ports/ids.ts';
import { RetryJob, type JobHandler, type JobQueue } from '../../core/ports/job-queue.ts';
import type { Persistence, QueuedJob } from '../../core/ports/persistence.ts';
import type { Logger } from '../../core/logger.ts';

export interface DbQueueOptions {
  /** How long a claimed job stays leased without a heartbeat; a dead worker's jobs return after it. */
  leaseMs: number;
  /** How often idle workers look for due jobs when nobody signals them (retries, other processes on SQLite). */
  pollIntervalMs: number;
  /** A job whose handler keeps throwing unexpected errors is given up after this many attempts. */
  maxAttempts: number;
}

/** Backoff for unexpected handler errors: 1 s, 2 s, 4 s … capped at 5 min. */
const backoff = (attempts: number) => Math.min(300_000, 1_000 * 2 ** Math.max(0, attempts - 1));

export function createDbQueue(deps: { persistence: Persistence; clock: Clock; ids: IdGenerator; logger: Logger }, options: DbQueueOptions): JobQueue {
  const { persistence, clock, logger } = deps;
  const workerId = deps.ids.id('wkr_');
  const running = new Map<string, Promise<void>>();
  let stopped = true;
  let loop: Promise<void> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  // A wake-up that arrives while the loop is busy is remembered, so the next wait returns at once.
  let woken = false;
  let wake: () => void = () => {};

  const notify = () => {
    woken = true;
    wake();
  };

  const idle = () =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wake = () => {};
        resolve();
      }
      wake = done;
    });

  async function settle(job: QueuedJob, handler: JobHandler) {
    try {
      await handler(job);
      await persistence.jobs.complete(job.id, workerId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof RetryJob)) {
        logger.error('job handler failed', { jobId: job.id, kind: job.kind, attempts: job.attempts, error: error instanceof Error ? error.stack : message });
        if (job.attempts >= options.maxAttempts) {
          logger.error('job given up', { jobId: job.id, kind: job.kind });
          await persistence.jobs.complete(job.id, workerId);
          return;
        }
      }
      const delay = error instanceof RetryJob ? error.delayMs : backoff(job.attempts);
      await persistence.jobs.reschedule(job.id, workerId, clock.now() + delay, message);
    }
  }

  async function run(handlers: Record<string, JobHandler>, concurrency: number) {
    const kinds = Object.keys(handlers);
    while (!stopped) {
      woken = false;
      const free = concurrency - running.size;
      let claimed: QueuedJob[] = [];
      if (free > 0) {
        try {
          claimed = await persistence.jobs.claim({ kinds, workerId, now: clock.now(), leaseMs: options.leaseMs, limit: free });
        } catch (error) {
          logger.error('claiming jobs failed', { error: String(error) });
        }
      }
      for (const job of claimed) {
        const task = settle(job, handlers[job.kind]!)
          .catch((error) => logger.error('job bookkeeping failed', { jobId: job.id, error: String(error) }))
          .finally(() => {
            running.delete(job.id);
            notify();
          });
        running.set(job.id, task);
      }
      // A full batch suggests more are due: look again at once instead of sleeping.
      if (claimed.length > 0 && claimed.length === free) continue;
      await idle();
    }
  }

  return {
    notify,
    async work(handlers, { concurrency }) {
      if (!stopped) throw new Error('this queue is already working');
      stopped = false;
      if (persistence.listenForJobs) unlisten = await persistence.listenForJobs(notify);
      heartbeat = setInterval(() => {
        persistence.jobs
          .extendLeases([...running.keys()], workerId, clock.now() + options.leaseMs)
          .catch((error) => logger.warn('extending job leases failed', { error: String(error) }));
      }, Math.max(50, Math.floor(options.leaseMs / 3)));
      loop = run(handlers, concurrency);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      wake();
      await loop;
      await Promise.all(running.values());
      clearInterval(heartbeat);
      await unlisten?.();
    },
  };
}
