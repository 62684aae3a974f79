/**
 * Job queue port. Adapters: `db` (jobs are rows in the same database as the data they concern,
 * written in the same transaction through the Kysely store's executor, `Repositories.kysely`) and
 * `pgboss` (pg-boss's tables in the same Postgres database, written through the transaction's
 * Postgres capability, `Repositories.postgres`).
 * The guarantees an adapter gives are on `JobQueue` (what an editor shows on hover).
 */
import type { QueuedJob } from '../domain/job.ts';
import type { Repositories } from './persistence/index.ts';
import type { DeadJob, JobKindStats, ProcessRepository } from './queue-tables/index.ts';

export type * from './queue-tables/index.ts';

/** Thrown by a handler to run its job again later: a transient failure, one of the job's `failures`. */
export class RetryJob extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryJob';
  }
}

/**
 * Thrown by a handler that our own outage stopped (image storage, say): the job runs again after
 * `delayMs`, and the run is not one of its `failures`, so the work keeps every retry it had for its
 * own failures once the outage is over. (An unavailable database is recognised by the queue itself.)
 */
export class PostponeJob extends RetryJob {
  constructor(delayMs: number, message: string) {
    super(delayMs, message);
    this.name = 'PostponeJob';
  }
}

/**
 * The delay before retrying work that our own outage stopped (the database, image storage):
 * doubling from `baseMs`, at most a minute apart, so the work resumes soon after the outage ends.
 */
export const outageRetryDelay = (attempts: number, baseMs = 1_000) =>
  Math.min(60_000, baseMs * 2 ** Math.max(0, attempts - 1));

/**
 * The Postgres channel `Persistence.listenForJobs` listens on, its payload the committed job's
 * kind. A queue engine with tables of its own sends `pg_notify(jobsChannel, kind)` inside the
 * enqueuing transaction (Postgres delivers it at commit, never after a rollback) to wake the
 * workers of every process.
 */
export const jobsChannel = 'visualizer_jobs';

export interface JobContext {
  /**
   * Aborted when the queue is stopping and can wait for this run no longer (see `stop`). A handler
   * that gives up its work then (throwing anything) has its job released to other workers at once,
   * neither failed nor counted as one of its failures.
   */
  readonly signal: AbortSignal;
  /**
   * Finishes the job inside the handler's own transaction, so its outcome and the job's removal
   * commit together (one commit instead of two). The handler must let that transaction's failure
   * propagate: a handler that throws is retried as if this had not been called.
   */
  completeIn(tx: Repositories): Promise<void>;
}

/**
 * Resolving finishes the job; throwing `RetryJob` or `PostponeJob` reschedules it; any other error
 * is retried with backoff.
 */
export type JobHandler = (job: QueuedJob, context: JobContext) => Promise<void>;

/** A job to enqueue; the queue gives it its id. */
export interface NewJob {
  kind: string;
  payload: unknown;
  /** Epoch milliseconds of the caller's clock; a queue on the database's clock runs it after the same delay from now. */
  runAt: number;
  /** The caller's `clock.now()` when enqueuing, against which `runAt` is read. */
  createdAt: number;
}

/** The dead letters of a queue (see `JobRepository` for the `db` queue's). */
export interface DeadLetters {
  /** The most recent death first; `kind` narrows them to one kind. */
  list(options: { kind?: string; limit: number }): Promise<DeadJob[]>;
  /**
   * Removes dead letters for a retry (one by `id`, or every one of `kind`, or all) inside `tx`, and
   * resolves to them; the caller enqueues them again in the same transaction.
   */
  take(tx: Repositories, filter: { id?: string; kind?: string }): Promise<DeadJob[]>;
  /** Deletes up to `limit` dead letters that died before `before`, inside `tx`; resolves to how many. */
  prune(tx: Repositories, before: number, limit: number): Promise<number>;
}

/**
 * Runs background jobs (renders, webhook deliveries) on workers, and keeps the queue's tables:
 * dead letters, schedule claims and the process registry (core/ports/queue-tables).
 *
 * An adapter must guarantee:
 * - At-least-once: an enqueued job runs until a handler finishes it, across crashes; a claimed
 *   job whose lease expires (its worker died) is claimed again.
 * - Exclusive leases: two workers never hold the same job at once.
 * - Prompt start: a job enqueued by this process (after `notify()`), or on Postgres by any
 *   process, is picked up without waiting for a polling interval (behind a transaction-mode
 *   pooler with no direct URL to LISTEN on, other processes' jobs wait for the poll).
 * - Bounded concurrency: at most `concurrency` handlers run at once per `work()` call.
 * - Transactional enqueue: a job enqueued in a transaction exists if and only if it commits.
 */
export interface JobQueue {
  /**
   * Readies the queue for jobs of `kinds` (an engine's schema, its per-kind storage), once per
   * process, before it reports ready. After it resolves, `enqueue` and `hasUnfinished` of those
   * kinds use no connection but their transaction's: a burst of requests holding every pooled
   * connection in their transactions never waits for one of its own. Other kinds may still be
   * readied on their first enqueue (fine for a one-shot command), with a connection of their own.
   */
  prepare(kinds: string[]): Promise<void>;
  /**
   * Enqueues a job inside `tx`, the transaction of the domain write it belongs to: it exists if
   * and only if that transaction commits. Call `notify()` after the commit.
   */
  enqueue(tx: Repositories, job: NewJob): Promise<void>;
  /** Count of jobs not yet finished (queued or running), of the given kinds or all; for tests, readiness and metrics. */
  pending(kinds?: string[]): Promise<number>;
  /**
   * Whether a job of `kind` not yet finished (queued, waiting for a retry or running) has a payload
   * with each of `fields` (top-level string fields, named by letters, digits and `_`), read inside
   * `tx`. A job finished or given up is not: a record whose work a job carries finds out here that
   * it must queue that job again.
   */
  hasUnfinished(tx: Repositories, kind: string, fields: Record<string, string>): Promise<boolean>;
  /** Per kind, the jobs due, running and scheduled, and the lag (for metrics). */
  stats(): Promise<JobKindStats[]>;
  /** The jobs given up, kept for operators (`visualizer jobs dead|retry`) whichever engine gave them up. */
  readonly deadLetters: DeadLetters;
  /**
   * Claims the current run of the periodic task `name` for this process: true for exactly one of
   * the processes ticking at once, then not again for `intervalMs` (see `ScheduleRepository`).
   */
  claimScheduledRun(name: string, intervalMs: number): Promise<boolean>;
  /** The registry of running `serve` and `worker` processes (topology checks at startup). */
  readonly processes: ProcessRepository;
  /** Wakes this process's idle workers now; call after committing a transaction that enqueued jobs. */
  notify(): void;
  /**
   * Starts claiming jobs of the handlers' kinds, with its own concurrency. It may be called again
   * for other kinds: each call is an independent lane, so slow kinds do not starve fast ones.
   */
  work(handlers: Record<string, JobHandler>, options: { concurrency: number }): Promise<void>;
  /**
   * Stops claiming and waits for running handlers to finish. Past `deadlineMs` it aborts their
   * signals, waits briefly for those that heed them, and returns; a handler that ignores its signal
   * keeps its job until the lease runs out.
   */
  stop(deadlineMs?: number): Promise<void>;
}
