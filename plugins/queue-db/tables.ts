import type {
  JobQueue,
  JobRepository,
  Persistence,
  ProcessRepository,
  Repositories,
  ScheduleRepository,
} from '../../kit/plugin.ts';
import { kyselyOf, type KyselyHandle } from '../store-kysely/library.ts';
import { jobRepository } from './jobs-table.ts';
import { processRepository } from './processes-table.ts';
import { scheduleRepository } from './schedules-table.ts';

/**
 * One of the queue's tables on a store connection or transaction, made the first time it is asked
 * for there and then kept (the jobs table is used in every create's transaction, so it is made
 * once per transaction, as the store's own repositories are).
 */
function tableOf<Table>(make: (handle: KyselyHandle) => Table) {
  const made = new WeakMap<Repositories, Table>();
  return (repositories: Repositories): Table => {
    let table = made.get(repositories);
    if (!table) made.set(repositories, (table = make(kyselyOf(repositories))));
    return table;
  };
}

/** The jobs and dead letters (tables `jobs` and `dead_jobs`) of the store or one of its transactions. */
export const jobsOf: (repositories: Repositories) => JobRepository = tableOf(({ db, dialect }) =>
  jobRepository(db, dialect),
);
/** The periodic tasks' claims (table `scheduled_runs`). */
export const schedulesOf: (repositories: Repositories) => ScheduleRepository = tableOf(({ db, dialect }) =>
  scheduleRepository(db, dialect),
);
/** The registry of running processes (table `processes`). */
export const processesOf: (repositories: Repositories) => ProcessRepository = tableOf(({ db }) =>
  processRepository(db),
);

/**
 * What the job queue port keeps beside the jobs (dead letters, schedule claims, the process
 * registry), in these tables of the store's database: the db queue's, and pg-boss's too, which has
 * no such tables of its own.
 */
export function queueTables(
  persistence: Persistence,
): Pick<JobQueue, 'deadLetters' | 'claimScheduledRun' | 'processes'> {
  return {
    deadLetters: {
      list: (options) => jobsOf(persistence).listDead(options),
      take: (tx, filter) => jobsOf(tx).takeDead(filter),
      prune: (tx, before, limit) => jobsOf(tx).pruneDead(before, limit),
    },
    claimScheduledRun: (name, intervalMs) => schedulesOf(persistence).claimRun(name, intervalMs),
    processes: processesOf(persistence),
  };
}
