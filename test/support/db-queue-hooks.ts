import type { ClaimedJob, JobQueueContractOptions } from 'visualizer/testing';
import type { Persistence } from 'visualizer/plugin';
import { jobsOf } from '../../plugins/queue-db/tables.ts';

/** `claimAs` on the db queue's jobs table. */
async function claimAs(
  persistence: Persistence,
  kind: string,
  workerId: string,
  leaseMs: number,
): Promise<ClaimedJob | undefined> {
  const jobs = jobsOf(persistence);
  const [job] = await jobs.claim({ kinds: [kind], workerId, now: Date.now(), leaseMs, limit: 1 });
  if (!job) return undefined;
  return {
    id: job.id,
    attempts: job.attempts,
    failures: job.failures,
    complete: () => jobs.complete(job.id, workerId),
    reschedule: () =>
      jobs.reschedule(job.id, workerId, {
        runAt: Date.now(),
        now: Date.now(),
        error: 'late',
        failed: true,
      }),
  };
}

/** The job-queue contract's hooks for the db queue, whose jobs are rows of its table in the store's database. */
export const dbQueueHooks: Pick<JobQueueContractOptions, 'claimAs' | 'pendingIn' | 'refuseOutcomes'> = {
  claimAs,
  pendingIn: (tx, kind) => jobsOf(tx).pending([kind]),
  // The db queue records a postponed run with its table's `reschedule` (one table per handle).
  refuseOutcomes(persistence, refuse, error) {
    const jobs = jobsOf(persistence);
    const reschedule = jobs.reschedule.bind(jobs);
    jobs.reschedule = async (...args) => {
      if (refuse()) throw error();
      return reschedule(...args);
    };
  },
};
