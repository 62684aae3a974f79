import { setTimeout as sleep } from 'node:timers/promises';
import type { QueuedJob } from '../core/domain/job.ts';
import type { Logger } from '../core/logger.ts';
import { outageRetryDelay, PostponeJob, RetryJob, type JobHandler, type JobQueue } from '../core/ports/job-queue.ts';
import type { Repositories } from '../core/ports/persistence/index.ts';

/**
 * What a queue's storage engine does for the runner; everything else the port promises (lanes,
 * wake-ups, retry accounting, leases kept alive, a stop that releases its jobs) the runner does.
 * Every write may throw an outage (`isUnavailable`): the runner waits it out.
 */
export interface QueueEngine {
  /** Leases up to `limit` due jobs of `kinds` to this worker. */
  claim(kinds: string[], limit: number): Promise<QueuedJob[]>;
  /** Finishes a job this worker holds. */
  complete(job: QueuedJob): Promise<unknown>;
  /** Finishes it inside a handler's transaction (`JobContext.completeIn`). */
  completeIn(tx: Repositories, job: QueuedJob): Promise<unknown>;
  /** Runs the job again after `delayMs`; `failed` counts the run as one of its failures. */
  reschedule(job: QueuedJob, retry: { delayMs: number; error: string; failed: boolean }): Promise<unknown>;
  /** Keeps a job whose last allowed failure this was as a dead letter (`visualizer jobs dead`). */
  giveUp(job: QueuedJob, error: string): Promise<unknown>;
  /** The heartbeat: keeps the leases of the jobs this worker runs (possibly none). */
  extendLeases(jobs: QueuedJob[]): Promise<unknown>;
  /** Readies the engine for a `work()` call's kinds before its lane claims; a failure fails that call. */
  start?(kinds: string[]): Promise<void>;
  /** Subscribes to jobs committed elsewhere (`wakeFor(kind)`; no kind wakes every lane); returns the unsubscribe. */
  listen?(wakeFor: (kind?: string) => void): Promise<() => Promise<void>>;
  /** Called last by `stop()`, once no handler runs. */
  stop?(): Promise<void>;
}

export interface QueueRunnerOptions {
  /** How long a claimed job stays leased without a heartbeat; a dead worker's jobs return after it. */
  leaseMs: number;
  /** How often idle workers look for due jobs when nobody signals them (retries, other processes without a listener). */
  pollIntervalMs: number;
  /**
   * A job whose handler keeps throwing unexpected errors is given up after this many failures (see
   * `QueuedJob.failures`); runs that an outage postponed do not count (an outage must not lose work).
   */
  maxAttempts: number;
  /**
   * Delay before running a job again after its first failure, or its first run an outage
   * postponed; it doubles with each further one (at most 5 min after failures, a minute after
   * outages). Default 1 s.
   */
  retryDelayMs?: number;
}

/** How long a stop waits, after aborting the runs that outlived its deadline, for them to give up. */
const abortGraceMs = 2_000;

/** Whether `promise` settles within `ms` (Infinity: waits for it). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) return promise.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Backoff after a job's nth failure (an unexpected handler error): base, twice that, four times … capped at 5 min. */
const backoff = (failure: number, baseMs: number) => Math.min(300_000, baseMs * 2 ** Math.max(0, failure - 1));

/**
 * One `work()` call: its own job kinds, concurrency and claim loop, so slow kinds (renders)
 * never occupy the slots of fast ones (webhook deliveries).
 */
interface Lane {
  kinds: string[];
  handlers: Record<string, JobHandler>;
  concurrency: number;
  running: Map<string, { job: QueuedJob; task: Promise<void> }>;
  /** A wake-up that arrives while the loop is busy is remembered, so the next wait returns at once. */
  woken: boolean;
  wake: () => void;
  loop?: Promise<void>;
}

/**
 * The worker side of a `JobQueue` over any storage engine: a queue plugin adds `enqueue` and
 * `pending` (and `stats`) to what this returns.
 */
export function createQueueRunner(
  engine: QueueEngine,
  deps: { logger: Logger; isUnavailable(error: unknown): boolean },
  options: QueueRunnerOptions,
): Pick<JobQueue, 'notify' | 'work' | 'stop'> {
  const { logger, isUnavailable } = deps;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const lanes: Lane[] = [];
  /** Each running job's abort controller, aborted when a stop's deadline passes. */
  const aborts = new Map<string, AbortController>();
  let stopped = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let listening: Promise<void> | undefined;

  const wakeLane = (lane: Lane) => {
    lane.woken = true;
    lane.wake();
  };
  const notify = () => lanes.forEach(wakeLane);
  /**
   * A notification from the engine names the committed job's kind: only the lane working it claims
   * (one per kind in a process; other processes' claims skip each other's locked rows). No kind: all look.
   */
  const wakeFor = (kind?: string) => {
    for (const lane of lanes) if (kind === undefined || lane.kinds.includes(kind)) wakeLane(lane);
  };

  const idle = (lane: Lane) =>
    new Promise<void>((resolve) => {
      if (lane.woken || stopped) return resolve();
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        lane.wake = () => {};
        resolve();
      }
      lane.wake = done;
    });

  /**
   * Writes a job's outcome, waiting out a database outage while this worker runs (its heartbeat
   * keeps the lease once the database is back). Given up at once, the outcome would be lost with the
   * lease: a finished job run again, a postponed run counted as a failure when claimed again.
   */
  async function record(job: QueuedJob, write: () => Promise<unknown>): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await write();
        return;
      } catch (error) {
        if (stopped || !isUnavailable(error)) throw error;
        if (tries === 1)
          logger.warn('recording a job outcome waits for the database', { jobId: job.id, error: String(error) });
        await sleep(Math.min(5_000, 100 * 2 ** tries));
      }
    }
  }

  async function settle(job: QueuedJob, handler: JobHandler) {
    let completedInTransaction = false;
    const abort = new AbortController();
    aborts.set(job.id, abort);
    try {
      await handler(job, {
        signal: abort.signal,
        async completeIn(tx) {
          await engine.completeIn(tx, job);
          completedInTransaction = true;
        },
      });
      if (!completedInTransaction) await record(job, () => engine.complete(job));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (abort.signal.aborted) {
        // This worker is stopping and took the run back: another worker starts it now, not after the lease.
        logger.info('job released: the worker is stopping', { jobId: job.id, kind: job.kind });
        await record(job, () =>
          engine.reschedule(job, { delayMs: 0, error: `released by a stopping worker: ${message}`, failed: false }),
        );
        return;
      }
      // An outage is retried for as long as it lasts, at least once a minute; giving the job up
      // would lose the work (a render's generation stuck in processing, an event never delivered).
      const outage = !(error instanceof RetryJob) && isUnavailable(error);
      if (outage)
        logger.warn('job postponed: database unavailable', {
          jobId: job.id,
          kind: job.kind,
          attempts: job.attempts,
          error: message,
        });
      else if (!(error instanceof RetryJob)) {
        logger.error('job handler failed', {
          jobId: job.id,
          kind: job.kind,
          attempts: job.attempts,
          failures: job.failures + 1,
          error: error instanceof Error ? error.stack : message,
        });
        if (job.failures + 1 >= options.maxAttempts) {
          logger.error('job given up: kept as a dead letter (visualizer jobs dead)', { jobId: job.id, kind: job.kind });
          await record(job, () => engine.giveUp(job, message));
          return;
        }
      }
      const delayMs =
        error instanceof RetryJob
          ? error.delayMs
          : outage
            ? outageRetryDelay(job.attempts, retryDelayMs)
            : backoff(job.failures + 1, retryDelayMs);
      const failed = !outage && !(error instanceof PostponeJob);
      await record(job, () => engine.reschedule(job, { delayMs, error: message, failed }));
    } finally {
      aborts.delete(job.id);
    }
  }

  async function run(lane: Lane) {
    while (!stopped) {
      // Slots freed in the same turn (one group commit finishes several jobs) are claimed together.
      await new Promise((resolve) => setImmediate(resolve));
      lane.woken = false;
      const free = lane.concurrency - lane.running.size;
      let claimed: QueuedJob[] = [];
      if (free > 0) {
        try {
          claimed = await engine.claim(lane.kinds, free);
        } catch (error) {
          logger.error('claiming jobs failed', { error: String(error) });
        }
      }
      for (const job of claimed) {
        const task = settle(job, lane.handlers[job.kind]!)
          .catch((error) => logger.error('job bookkeeping failed', { jobId: job.id, error: String(error) }))
          .finally(() => {
            lane.running.delete(job.id);
            wakeLane(lane);
          });
        lane.running.set(job.id, { job, task });
      }
      // A full batch suggests more are due: look again at once instead of sleeping.
      if (claimed.length > 0 && claimed.length === free) continue;
      await idle(lane);
    }
  }

  const running = () => lanes.flatMap((lane) => [...lane.running.values()]);

  return {
    notify,
    async work(handlers, { concurrency }) {
      if (stopped) throw new Error('this queue has been stopped');
      const kinds = Object.keys(handlers);
      if (lanes.some((lane) => lane.kinds.some((kind) => kinds.includes(kind))))
        throw new Error(`already working on ${kinds.join(', ')}`);
      const lane: Lane = { kinds, handlers, concurrency, running: new Map(), woken: false, wake: () => {} };
      lanes.push(lane);
      // Shared by every lane and by stop(), so concurrent calls set up one listener.
      listening ??= (async () => {
        if (engine.listen) unlisten = await engine.listen(wakeFor);
      })();
      await listening;
      await engine.start?.(kinds);
      // A stop that came during the start has already cleared the heartbeat: none is left behind.
      if (stopped) return;
      heartbeat ??= setInterval(
        () => {
          engine
            .extendLeases(running().map((entry) => entry.job))
            .catch((error) => logger.warn('extending job leases failed', { error: String(error) }));
        },
        Math.max(50, Math.floor(options.leaseMs / 3)),
      );
      lane.loop = run(lane);
    },
    async stop(deadlineMs = Infinity) {
      if (stopped) return;
      stopped = true;
      notify();
      await listening?.catch(() => {});
      await Promise.all(lanes.map((lane) => lane.loop));
      const tasks = Promise.all(running().map((entry) => entry.task));
      if (!(await settlesWithin(tasks, deadlineMs))) {
        logger.warn('stopping: aborting the jobs still running', { jobs: [...aborts.keys()] });
        for (const abort of aborts.values()) abort.abort(new Error('the worker is stopping'));
        await settlesWithin(tasks, abortGraceMs);
      }
      clearInterval(heartbeat);
      await unlisten?.();
      await engine.stop?.();
    },
  };
}
