import {
  createQueueRunner,
  type Clock,
  type IdGenerator,
  type JobQueue,
  type Logger,
  type Persistence,
  type QueueRunnerOptions,
} from '../../kit/plugin.ts';

export type DbQueueOptions = QueueRunnerOptions;

/**
 * The job queue on the persistence port: jobs are rows of the store's own database, claimed,
 * rescheduled and buried through `Repositories.jobs`; the kit's runner works them.
 */
export function createDbQueue(
  deps: { persistence: Persistence; clock: Clock; ids: IdGenerator; logger: Logger },
  options: DbQueueOptions,
): JobQueue {
  const { persistence, clock, logger } = deps;
  const workerId = deps.ids.id('wkr_');
  /** A retry time with the clock reading it is relative to (a database on its own clock keeps only the delay). */
  const retryIn = (delayMs: number) => {
    const now = clock.now();
    return { runAt: now + delayMs, now };
  };

  const runner = createQueueRunner(
    {
      // In a transaction of its own, so on SQLite it shares a group commit with the handlers' outcomes.
      claim: (kinds, limit) =>
        persistence.transaction((tx) =>
          tx.jobs.claim({ kinds, workerId, now: clock.now(), leaseMs: options.leaseMs, limit }),
        ),
      complete: (job) => persistence.jobs.complete(job.id, workerId),
      completeIn: (tx, job) => tx.jobs.complete(job.id, workerId),
      reschedule: (job, { delayMs, error, failed }) =>
        persistence.jobs.reschedule(job.id, workerId, { ...retryIn(delayMs), error, failed }),
      giveUp: (job, error) =>
        persistence.transaction((tx) => tx.jobs.bury(job.id, workerId, { error, diedAt: clock.now() })),
      extendLeases: (jobs) =>
        persistence.jobs.extendLeases(
          jobs.map((job) => job.id),
          workerId,
          { now: clock.now(), leaseMs: options.leaseMs },
        ),
      // Postgres NOTIFY names the committed job's kind, so only the lane working that kind wakes.
      listen: persistence.listenForJobs?.bind(persistence),
    },
    { logger, isUnavailable: (error) => persistence.isUnavailable(error) },
    options,
  );

  return {
    ...runner,
    // The job is a row of the transaction's own database, so it commits or rolls back with it.
    enqueue: (tx, job) => tx.jobs.enqueue({ id: deps.ids.id('job_'), ...job }),
    pending: (kinds) => persistence.jobs.pending(kinds),
    hasUnfinished: (tx, kind, fields) => tx.jobs.hasUnfinished(kind, fields),
  };
}
