import type { QueuedJob } from '../../domain/job.ts';

export interface JobRepository {
  enqueue(job: { id: string; kind: string; payload: unknown; runAt: number; createdAt: number }): Promise<void>;
  /**
   * Leases up to `limit` due jobs of the given kinds to `workerId` until `now + leaseMs`, counting
   * an attempt on each, and a failure on each whose last lease expired (its worker died). A job is
   * due when its run time has come and it has no live lease.
   * Two concurrent claims never return the same job.
   */
  claim(options: { kinds: string[]; workerId: string; now: number; leaseMs: number; limit: number }): Promise<QueuedJob[]>;
  /** Removes a finished job, if `workerId` still holds it. */
  complete(id: string, workerId: string): Promise<boolean>;
  /**
   * Releases the lease and runs the job again at `runAt`; `failed` counts the run among the job's
   * failures (false for a run an outage postponed).
   */
  reschedule(id: string, workerId: string, retry: { runAt: number; error: string; failed: boolean }): Promise<boolean>;
  /** Keeps leases alive while their jobs run. */
  extendLeases(ids: string[], workerId: string, until: number): Promise<void>;
  /** Count of jobs not yet finished (queued or running); for tests and readiness checks. */
  pending(kinds?: string[]): Promise<number>;
}
