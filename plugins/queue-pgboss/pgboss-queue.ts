import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import { outageRetryDelay, PostponeJob, RetryJob, type Clock, type JobHandler, type JobQueue, type Logger, type Persistence, type QueuedJob } from '../../kit/plugin.ts';
import { inTransaction, onPool, sqlOf, type BossDb } from './boss-db.ts';

export interface PgBossQueueOptions {
  /** pg-boss's schema in the store's database. */
  schema: string;
  /**
   * How long a claimed job stays leased without a heartbeat (pg-boss's expiration, whole seconds,
   * at least 1); a dead worker's jobs return after it, at pg-boss's next maintenance.
   */
  leaseMs: number;
  /** How often idle workers look for due jobs when this process did not wake them (pg-boss polls; no LISTEN). */
  pollIntervalMs: number;
  /** A job is given up (left in pg-boss's `failed` state) after this many failures; postponed runs do not count. */
  maxAttempts: number;
  /** How often one process of the cluster expires lost leases and archives old jobs (pg-boss's maintenance). */
  maintenanceIntervalSeconds: number;
  /** How long jobs given up stay in pg-boss's `failed` state, visible to operators, before pg-boss archives them. */
  keepFailedDays: number;
}

/** What we keep in a pg-boss job's data: pg-boss's own retry count cannot tell postponed runs from failures. */
interface Envelope {
  payload: unknown;
  /** Runs of the job before this pg-boss row was sent (each reschedule sends a new row). */
  attempts: number;
  failures: number;
}

interface BossJob {
  id: string;
  name: string;
  data: Envelope;
  retryCount: number;
}

/** Backoff after a job's nth failure (an unexpected handler error): 1 s, 2 s, 4 s … capped at 5 min (as the db queue). */
const backoff = (failure: number) => Math.min(300_000, 1_000 * 2 ** Math.max(0, failure - 1));

/** How long a stop waits, after aborting the runs that outlived its deadline, for them to give up. */
const abortGraceMs = 2_000;

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) return promise.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

interface Lane {
  kinds: string[];
  handlers: Record<string, JobHandler>;
  concurrency: number;
  running: Map<string, { kind: string; task: Promise<void> }>;
  woken: boolean;
  wake: () => void;
  loop?: Promise<void>;
}

/**
 * The job queue on pg-boss 10, in pg-boss's tables of the store's Postgres database. pg-boss
 * stores, claims (`FOR UPDATE SKIP LOCKED`, on the database's clock), expires lost leases and
 * archives; this adapter adds what the port promises beyond it: our retry accounting (a
 * reschedule completes the row and sends a new one carrying attempts and failures, in one
 * transaction), a lease heartbeat, lanes and a stop that releases its jobs.
 */
export function createPgBossQueue(deps: { persistence: Persistence; clock: Clock; logger: Logger }, options: PgBossQueueOptions): JobQueue {
  const { persistence, clock, logger } = deps;
  const { schema } = options;
  const expireInSeconds = Math.max(1, Math.ceil(options.leaseMs / 1000));
  const pool = onPool(persistence);
  const newBoss = () => {
    const created = new PgBoss({
      db: pool as PgBoss.Db,
      schema,
      // Our own loops fetch; pg-boss's cron would need a clock monitor we do not use.
      schedule: false,
      supervise: true,
      migrate: true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds,
      archiveFailedAfterSeconds: options.keepFailedDays * 86_400,
    });
    // An EventEmitter's unheard 'error' would throw; pg-boss reports maintenance failures there.
    created.on('error', (error) => logger.warn('pg-boss maintenance failed', { error: String(error) }));
    return created;
  };
  let boss = newBoss();

  const lanes: Lane[] = [];
  const aborts = new Map<string, AbortController>();
  let stopped = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let starting: Promise<unknown> | undefined;
  const queues = new Map<string, Promise<void>>();

  /** Installs or migrates pg-boss's schema (under its transaction-scoped advisory lock) and starts its maintenance. */
  const start = () =>
    (starting ??= boss.start().catch((error: unknown) => {
      // A PgBoss whose start failed (the database away) never starts again: the next call makes a new one.
      starting = undefined;
      boss = newBoss();
      throw error;
    }));
  /**
   * Creates a pg-boss queue. Two creations at once (attaching partitions to one table) can
   * deadlock in Postgres, so this process creates one at a time, and one that lost a deadlock to
   * another process tries again (by then the other's queue exists or its own goes through).
   */
  let creating: Promise<unknown> = Promise.resolve();
  const createQueue = (kind: string) => {
    const created = creating.then(async () => {
      for (let tries = 1; ; tries++) {
        try {
          return await boss.createQueue(kind, { name: kind, policy: 'standard' });
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01' || tries >= 5) throw error;
          await sleep(50 * tries);
        }
      }
    });
    creating = created.catch(() => {});
    return created;
  };
  /** pg-boss 10 keeps each queue in its own partition, which must exist before a job is sent to it. */
  const queueFor = (kind: string) => {
    let ready = queues.get(kind);
    if (!ready) {
      // A lookup first: once the queue exists (its first use in the cluster), no DDL runs again.
      ready = start().then(async () => void ((await boss.getQueue(kind)) ?? (await createQueue(kind))));
      ready.catch(() => queues.delete(kind));
      queues.set(kind, ready);
    }
    return ready;
  };

  async function send(db: BossDb, kind: string, envelope: Envelope, delayMs: number) {
    // The row's own retries are pg-boss's recovery of lost leases, each one of the job's failures.
    const retryLimit = Math.max(0, options.maxAttempts - envelope.failures - 1);
    const id = await boss.send(kind, envelope as object, {
      db: db as PgBoss.Db,
      // Seconds from the database's now(); pg-boss casts the text to an interval.
      startAfter: delayMs > 0 ? (delayMs / 1000).toFixed(3) : undefined,
      retryLimit,
      retryDelay: 0,
      expireInSeconds,
    });
    if (!id) throw new Error(`pg-boss did not accept a ${kind} job`);
  }

  const wakeLane = (lane: Lane) => {
    lane.woken = true;
    lane.wake();
  };
  const notify = () => lanes.forEach(wakeLane);

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

  /** Writes a job's outcome, waiting out a database outage while this worker runs (see the db queue). */
  async function record(job: QueuedJob, write: () => Promise<unknown>): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await write();
        return;
      } catch (error) {
        if (stopped || !persistence.isUnavailable(error)) throw error;
        if (tries === 1) logger.warn('recording a job outcome waits for the database', { jobId: job.id, error: String(error) });
        await sleep(Math.min(5_000, 100 * 2 ** tries));
      }
    }
  }

  /** Ends this row and sends its successor, in one transaction: the job is never lost nor doubled. */
  const reschedule = (job: QueuedJob, delayMs: number, error: string, failed: boolean) =>
    record(job, () =>
      persistence.transaction(async (tx) => {
        const db = inTransaction(tx);
        const result = (await boss.complete(job.kind, job.id, { rescheduled: true, error: error.slice(0, 2000) }, { db: db as PgBoss.Db })) as unknown as { affected: number };
        // A row this worker no longer holds (its lease expired) is another worker's now.
        if (result.affected === 1) await send(db, job.kind, { payload: job.payload, attempts: job.attempts, failures: job.failures + (failed ? 1 : 0) }, delayMs);
      }),
    );

  async function settle(job: QueuedJob, handler: JobHandler) {
    let completedInTransaction = false;
    const abort = new AbortController();
    aborts.set(job.id, abort);
    try {
      await handler(job, {
        signal: abort.signal,
        async completeIn(tx) {
          await boss.complete(job.kind, job.id, {}, { db: inTransaction(tx) as PgBoss.Db });
          completedInTransaction = true;
        },
      });
      if (!completedInTransaction) await record(job, () => boss.complete(job.kind, job.id));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (abort.signal.aborted) {
        logger.info('job released: the worker is stopping', { jobId: job.id, kind: job.kind });
        await reschedule(job, 0, `released by a stopping worker: ${message}`, false);
        return;
      }
      const outage = !(error instanceof RetryJob) && persistence.isUnavailable(error);
      if (outage) logger.warn('job postponed: database unavailable', { jobId: job.id, kind: job.kind, attempts: job.attempts, error: message });
      else if (!(error instanceof RetryJob)) {
        logger.error('job handler failed', { jobId: job.id, kind: job.kind, attempts: job.attempts, failures: job.failures + 1, error: error instanceof Error ? error.stack : message });
        if (job.failures + 1 >= options.maxAttempts) {
          // Kept in the store's dead letters, like the db queue's, so `visualizer jobs dead` and `jobs retry` see every engine's.
          logger.error('job given up', { jobId: job.id, kind: job.kind });
          await record(job, () =>
            persistence.transaction(async (tx) => {
              await boss.complete(job.kind, job.id, {}, { db: inTransaction(tx) as PgBoss.Db });
              const diedAt = clock.now();
              await tx.jobs.recordDead({ id: job.id, kind: job.kind, payload: job.payload, attempts: job.attempts, failures: job.failures + 1, lastError: message, createdAt: diedAt, diedAt });
            }),
          );
          return;
        }
      }
      const delay = error instanceof RetryJob ? error.delayMs : outage ? outageRetryDelay(job.attempts) : backoff(job.failures + 1);
      await reschedule(job, delay, message, !outage && !(error instanceof PostponeJob));
    } finally {
      aborts.delete(job.id);
    }
  }

  const toQueued = (row: BossJob): QueuedJob => ({
    id: row.id,
    kind: row.name,
    payload: row.data.payload,
    // pg-boss counts a row's runs after a lost lease in retryCount.
    attempts: row.data.attempts + row.retryCount + 1,
    failures: row.data.failures + row.retryCount,
  });

  async function claim(lane: Lane, free: number): Promise<QueuedJob[]> {
    const claimed: QueuedJob[] = [];
    for (const kind of lane.kinds) {
      if (claimed.length >= free) break;
      const rows = (await boss.fetch(kind, { batchSize: free - claimed.length, includeMetadata: true })) as unknown as BossJob[];
      claimed.push(...rows.map(toQueued));
    }
    return claimed;
  }

  async function run(lane: Lane) {
    while (!stopped) {
      await new Promise((resolve) => setImmediate(resolve));
      lane.woken = false;
      const free = lane.concurrency - lane.running.size;
      let claimed: QueuedJob[] = [];
      if (free > 0) {
        try {
          claimed = await claim(lane, free);
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
        lane.running.set(job.id, { kind: job.kind, task });
      }
      if (claimed.length > 0 && claimed.length === free) continue;
      await idle(lane);
    }
  }

  /**
   * pg-boss 10 has no heartbeat: a job is expired `expireInSeconds` after it started. Moving the
   * start of the jobs this process runs keeps them leased while their handlers work, so the lease
   * can be short (a dead worker's jobs return soon) and a render still take as long as it needs.
   */
  async function extendLeases() {
    const running = lanes.flatMap((lane) => [...lane.running].map(([id, { kind }]) => ({ id, kind })));
    if (running.length === 0) return;
    await sqlOf(persistence).query(
      `UPDATE ${schema}.job SET started_on = now() WHERE name = ANY($1::text[]) AND id = ANY($2::uuid[]) AND state = 'active'`,
      [[...new Set(running.map((job) => job.kind))], running.map((job) => job.id)],
    );
  }

  return {
    notify,
    async enqueue(tx, job) {
      const db = inTransaction(tx);
      await queueFor(job.kind);
      await send(db, job.kind, { payload: job.payload, attempts: 0, failures: 0 }, job.runAt - job.createdAt);
    },
    async pending(kinds) {
      await start();
      const names = kinds ?? (await boss.getQueues()).map((queue) => queue.name);
      const { rows } = await sqlOf(persistence).query(`SELECT count(*)::int AS count FROM ${schema}.job WHERE name = ANY($1::text[]) AND state < 'completed'`, [names]);
      return Number(rows[0]?.count ?? 0);
    },
    // Queue depth and lag for /metrics, from pg-boss's table on the database's clock.
    async stats() {
      await start();
      const { rows } = await sqlOf(persistence).query(
        `SELECT name AS kind,
           count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS due,
           count(*) FILTER (WHERE state = 'active')::int AS running,
           count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
           COALESCE(round(extract(epoch FROM now() - min(start_after) FILTER (WHERE state < 'active' AND start_after <= now())) * 1000), 0)::float8 AS lag_ms
         FROM ${schema}.job WHERE state < 'completed' GROUP BY name ORDER BY name`,
      );
      return rows.map((row) => ({ kind: row.kind, due: row.due, running: row.running, scheduled: row.scheduled, lagMs: row.lag_ms }));
    },
    async work(handlers, { concurrency }) {
      if (stopped) throw new Error('this queue has been stopped');
      const kinds = Object.keys(handlers);
      if (lanes.some((lane) => lane.kinds.some((kind) => kinds.includes(kind)))) throw new Error(`already working on ${kinds.join(', ')}`);
      const lane: Lane = { kinds, handlers, concurrency, running: new Map(), woken: false, wake: () => {} };
      lanes.push(lane);
      await Promise.all(kinds.map(queueFor));
      heartbeat ??= setInterval(() => {
        extendLeases().catch((error) => logger.warn('extending job leases failed', { error: String(error) }));
      }, Math.max(50, Math.floor(options.leaseMs / 3)));
      if (!stopped) lane.loop = run(lane);
    },
    async stop(deadlineMs = Infinity) {
      if (stopped) return;
      stopped = true;
      notify();
      await Promise.all(lanes.map((lane) => lane.loop));
      const running = Promise.all(lanes.flatMap((lane) => [...lane.running.values()].map((entry) => entry.task)));
      if (!(await settlesWithin(running, deadlineMs))) {
        logger.warn('stopping: aborting the jobs still running', { jobs: [...aborts.keys()] });
        for (const abort of aborts.values()) abort.abort(new Error('the worker is stopping'));
        await settlesWithin(running, abortGraceMs);
      }
      clearInterval(heartbeat);
      if (starting) {
        await starting.catch(() => {});
        await boss.stop({ graceful: false, close: false });
      }
    },
  };
}
