import {
  createQueueRunner,
  type Clock,
  type IdGenerator,
  type JobQueue,
  type Logger,
  type Persistence,
  type QueueRunnerOptions,
} from '../../kit/plugin.ts';
import { jobsOf, queueTables } from './tables.ts';

export type DbQueueOptions = QueueRunnerOptions;

/**
 * The job queue in the Kysely store's database: jobs are rows of its `jobs` table (tables.ts),
 * written through the store's executor (`Repositories.kysely`), so an enqueue commits with the
 * domain write; the kit's runner works them. The queue's other tables (dead letters, schedule
 * claims, processes) are kept the same way.
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
          jobsOf(tx).claim({ kinds, workerId, now: clock.now(), leaseMs: options.leaseMs, limit }),
        ),
      complete: (job) => jobsOf(persistence).complete(job.id, workerId),
      completeIn: (tx, job) => jobsOf(tx).complete(job.id, workerId),
      reschedule: (job, { delayMs, error, failed }) =>
        jobsOf(persistence).reschedule(job.id, workerId, { ...retryIn(delayMs), error, failed }),
      giveUp: (job, error) =>
        persistence.transaction((tx) => jobsOf(tx).bury(job.id, workerId, { error, diedAt: clock.now() })),
      extendLeases: (jobs) =>
        jobsOf(persistence).extendLeases(
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
    ...queueTables(persistence),
    // The jobs table is the store's, made by its migrations: nothing is left to ready per kind.
    prepare: async () => {},
    // The job is a row of the transaction's own database, so it commits or rolls back with it.
    enqueue: (tx, job) => jobsOf(tx).enqueue({ id: deps.ids.id('job_'), ...job }),
    pending: (kinds) => jobsOf(persistence).pending(kinds),
    hasUnfinished: (tx, kind, fields) => jobsOf(tx).hasUnfinished(kind, fields),
    stats: () => jobsOf(persistence).stats(clock.now()),
  };
}
