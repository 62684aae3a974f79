/**
 * Job queue port. Adapter: `db` (jobs are rows in the same database as the data they
 * concern, written in the same transaction).
 *
 * An adapter must guarantee:
 * - At-least-once: an enqueued job runs until a handler completes it, across crashes;
 *   a claimed job whose lease expires is claimed again.
 * - Exclusive leases: two workers never hold the same job at the same time.
 * - Prompt start: a job enqueued by this process, or (Postgres) another one, is picked up
 *   without waiting for a polling interval.
 */
export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  attempts: number;
  runAt: number;
}

export type JobHandler<P = unknown> = (job: Job<P>) => Promise<void>;

export interface JobQueue {
  enqueue(kind: string, payload: unknown, options?: { runAt?: number }): Promise<string>;
  /** Starts claiming jobs of the given kinds with at most `concurrency` running at once. */
  work(handlers: Record<string, JobHandler>, options: { concurrency: number }): Promise<void>;
  /** Stops claiming and waits for running jobs to finish. */
  stop(): Promise<void>;
}
