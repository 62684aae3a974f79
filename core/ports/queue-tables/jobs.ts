import type { QueuedJob } from '../../domain/job.ts';

/**
 * The `db` queue's jobs table, with the dead letters every queue engine keeps its given-up jobs in.
 * Times are epoch milliseconds of the caller's clock, each call carrying the caller's `now`
 * (`createdAt` for enqueue). A database server shared by many hosts keeps run times and leases on
 * its own clock instead and reads the caller's times as offsets from that `now`, so a host whose
 * clock is off neither steals live leases nor leaves dead ones; an embedded database uses them as given.
 */
export interface JobRepository {
  /** Queues a job to run at `runAt`; `createdAt` is the caller's now. */
  enqueue(job: { id: string; kind: string; payload: unknown; runAt: number; createdAt: number }): Promise<void>;
  /**
   * Leases up to `limit` due jobs of the given kinds to `workerId` for `leaseMs` from now, counting
   * an attempt on each, and a failure on each whose last lease expired (its worker died). A job is
   * due when its run time has come and it has no live lease.
   * Two concurrent claims never return the same job.
   */
  claim(options: {
    kinds: string[];
    workerId: string;
    now: number;
    leaseMs: number;
    limit: number;
  }): Promise<QueuedJob[]>;
  /** Removes a finished job, if `workerId` still holds it. */
  complete(id: string, workerId: string): Promise<boolean>;
  /**
   * Releases the lease and runs the job again at `runAt` (`runAt - now` from now); `failed` counts
   * the run among the job's failures (false for a run an outage postponed).
   */
  reschedule(
    id: string,
    workerId: string,
    retry: { runAt: number; now: number; error: string; failed: boolean },
  ): Promise<boolean>;
  /** Keeps leases alive while their jobs run: each runs out `leaseMs` from now. */
  extendLeases(ids: string[], workerId: string, lease: { now: number; leaseMs: number }): Promise<void>;
  /** Count of jobs not yet finished (queued or running); for tests and readiness checks. */
  pending(kinds?: string[]): Promise<number>;
  /**
   * Whether a job of `kind` not yet finished (queued, waiting for a retry or running) has a payload
   * with each of `fields` (top-level string fields, named by letters, digits and `_`). A job
   * finished or given up (a dead letter) is not.
   */
  hasUnfinished(kind: string, fields: Record<string, string>): Promise<boolean>;
  /** Per kind, the jobs due, running and scheduled for later at `now` (the database's own clock where it has one), and the lag (metrics). */
  stats(now: number): Promise<JobKindStats[]>;
  /**
   * Moves a job `workerId` still holds to the dead letters (given up after `maxAttempts` failures),
   * its last error recorded. Call it inside `transaction()`: the move is then atomic, so the job is
   * either still queued or dead, never lost. Resolves false if the worker no longer held it.
   */
  bury(id: string, workerId: string, death: { error: string; diedAt: number }): Promise<boolean>;
  /** Adds a dead letter for a job a queue engine of its own gave up (its row is not in this store's jobs). */
  recordDead(job: DeadJob): Promise<void>;
  /** Dead letters, the most recent death first; `kind` narrows them to one kind. */
  listDead(options: { kind?: string; limit: number }): Promise<DeadJob[]>;
  /**
   * Removes dead letters for a retry (one by `id`, or every one of `kind`, or all) and resolves to
   * them; the caller enqueues them again in the same transaction.
   */
  takeDead(filter: { id?: string; kind?: string }): Promise<DeadJob[]>;
  /** Deletes up to `limit` dead letters that died before `before`; resolves to how many (retention). */
  pruneDead(before: number, limit: number): Promise<number>;
}

/** A job the queue gave up, as operators see it (`visualizer jobs dead`). */
export interface DeadJob {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  failures: number;
  lastError: string | null;
  createdAt: number;
  diedAt: number;
}

/** One kind's queue at a moment: what `/metrics` reports as depth and lag. */
export interface JobKindStats {
  kind: string;
  /** Waiting for a worker: their run time has come and nobody holds them. */
  due: number;
  /** Held by a worker's live lease. */
  running: number;
  /** Not due yet (retries, delayed deliveries). */
  scheduled: number;
  /** How long the oldest due job has waited since its run time, in ms; 0 when none is due. */
  lagMs: number;
}
