import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import {
  createQueueRunner,
  jobsChannel,
  type Clock,
  type JobQueue,
  type Logger,
  type Persistence,
  type QueuedJob,
  type QueueRunnerOptions,
} from '../../kit/plugin.ts';
import { jobsOf, queueTables } from '../queue-db/tables.ts';
import { inTransaction, onPool, postgresOf, type BossDb } from './boss-db.ts';

/**
 * `leaseMs` becomes pg-boss's expiration (whole seconds, at least 1): a dead worker's jobs return at
 * pg-boss's next maintenance after it. `pollIntervalMs` is our runner's, not pg-boss's (whose
 * `work()` we do not use): how often an idle lane calls pg-boss's `fetch` when nothing wakes it.
 */
export interface PgBossQueueOptions extends QueueRunnerOptions {
  /** pg-boss's schema in the store's database. */
  schema: string;
  /** How often one process of the cluster expires lost leases and archives old jobs (pg-boss's maintenance). */
  maintenanceIntervalSeconds: number;
  /** How long jobs given up stay in pg-boss's `failed` state, visible to operators, before pg-boss archives them. */
  keepFailedDays: number;
  /**
   * Default true: each due job is announced by a Postgres NOTIFY sent in its transaction, and
   * workers LISTEN (through the store's session connection), so an idle worker of any process
   * starts it at once instead of at its next poll. False: neither, as pg-boss itself does.
   */
  wakeOtherProcesses?: boolean;
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

/**
 * The job queue on pg-boss 10, in pg-boss's tables of the store's Postgres database. pg-boss
 * stores, claims (`FOR UPDATE SKIP LOCKED`, on the database's clock), expires lost leases and
 * archives; the kit's runner adds lanes, retries, a lease heartbeat and a stop that releases its
 * jobs, over this adapter's pg-boss calls: our retry accounting (a reschedule completes the row
 * and sends a new one carrying attempts and failures, in one transaction) and leases moved by SQL.
 * Everything goes through pg-boss's public API except what pg-boss 10 has no call for (a lease
 * extension, a search by payload, depth by state with lag), which is SQL on pg-boss's `job` table
 * through the store's Postgres capability (`Repositories.postgres`).
 */
export function createPgBossQueue(
  deps: { persistence: Persistence; clock: Clock; logger: Logger },
  options: PgBossQueueOptions,
): JobQueue {
  const { persistence, clock, logger } = deps;
  const { schema, wakeOtherProcesses = true } = options;
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
  /** Set once `prepare` ran: this process is a server, whose requests must not ready a kind themselves. */
  let prepared = false;
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
    // Postgres delivers a NOTIFY when its transaction commits, so the job is visible to whoever it
    // wakes, and never delivers one that rolled back. A job due later is found by the poll.
    if (wakeOtherProcesses && delayMs <= 0) await db.executeSql('SELECT pg_notify($1, $2)', [jobsChannel, kind]);
  }

  /** Ends this row and sends its successor, in one transaction: the job is never lost nor doubled. */
  const reschedule = (
    job: QueuedJob,
    { delayMs, error, failed }: { delayMs: number; error: string; failed: boolean },
  ) =>
    persistence.transaction(async (tx) => {
      const db = inTransaction(tx);
      const result = (await boss.complete(
        job.kind,
        job.id,
        { rescheduled: true, error: error.slice(0, 2000) },
        { db: db as PgBoss.Db },
      )) as unknown as { affected: number };
      // A row this worker no longer holds (its lease expired) is another worker's now.
      if (result.affected === 1)
        await send(
          db,
          job.kind,
          { payload: job.payload, attempts: job.attempts, failures: job.failures + (failed ? 1 : 0) },
          delayMs,
        );
    });

  /**
   * Kept in the db queue's dead letters (its `dead_jobs` table in the same database, queue-db/tables.ts),
   * so `visualizer jobs dead` and `jobs retry` see every engine's.
   */
  const giveUp = (job: QueuedJob, error: string) =>
    persistence.transaction(async (tx) => {
      await boss.complete(job.kind, job.id, {}, { db: inTransaction(tx) as PgBoss.Db });
      const diedAt = clock.now();
      await jobsOf(tx).recordDead({
        id: job.id,
        kind: job.kind,
        payload: job.payload,
        attempts: job.attempts,
        failures: job.failures + 1,
        lastError: error,
        createdAt: diedAt,
        diedAt,
      });
    });

  const toQueued = (row: BossJob): QueuedJob => ({
    id: row.id,
    kind: row.name,
    payload: row.data.payload,
    // pg-boss counts a row's runs after a lost lease in retryCount.
    attempts: row.data.attempts + row.retryCount + 1,
    failures: row.data.failures + row.retryCount,
  });

  async function claim(kinds: string[], limit: number): Promise<QueuedJob[]> {
    const claimed: QueuedJob[] = [];
    for (const kind of kinds) {
      if (claimed.length >= limit) break;
      const rows = (await boss.fetch(kind, {
        batchSize: limit - claimed.length,
        includeMetadata: true,
      })) as unknown as BossJob[];
      claimed.push(...rows.map(toQueued));
    }
    return claimed;
  }

  /**
   * pg-boss 10 has no heartbeat: a job is expired `expireInSeconds` after it started. Moving the
   * start of the jobs this process runs keeps them leased while their handlers work, so the lease
   * can be short (a dead worker's jobs return soon) and a render still take as long as it needs.
   */
  async function extendLeases(running: QueuedJob[]) {
    if (running.length === 0) return;
    // SQL: pg-boss 10 has no call that moves an active job's start (no heartbeat, no touch).
    await postgresOf(persistence).query(
      `UPDATE ${schema}.job SET started_on = now() WHERE name = ANY($1::text[]) AND id = ANY($2::uuid[]) AND state = 'active'`,
      [[...new Set(running.map((job) => job.kind))], running.map((job) => job.id)],
    );
  }

  const runner = createQueueRunner(
    {
      claim,
      complete: (job) => boss.complete(job.kind, job.id),
      completeIn: (tx, job) => boss.complete(job.kind, job.id, {}, { db: inTransaction(tx) as PgBoss.Db }),
      reschedule,
      giveUp,
      extendLeases,
      start: async (kinds) => void (await Promise.all(kinds.map(queueFor))),
      // pg-boss 10 has no LISTEN of its own (its `notifyWorker` wakes only this process's `work()`).
      listen: wakeOtherProcesses ? persistence.listenForJobs?.bind(persistence) : undefined,
      async stop() {
        if (!starting) return;
        await starting.catch(() => {});
        await boss.stop({ graceful: false, close: false });
      },
    },
    { logger, isUnavailable: (error) => persistence.isUnavailable(error) },
    options,
  );

  return {
    ...runner,
    ...queueTables(persistence),
    async prepare(kinds) {
      await start();
      // One kind after another, as a lane's start readies its kinds: queue creations are serial anyway.
      for (const kind of new Set(kinds)) await queueFor(kind);
      prepared = true;
    },
    async enqueue(tx, job) {
      const db = inTransaction(tx);
      // Readying a kind here takes pooled connections while `tx` holds one: harmless in a one-shot
      // command, a stall under a burst of requests, so a server names every kind to `prepare`.
      if (prepared && !queues.has(job.kind))
        logger.warn('pg-boss queue readied inside a transaction: its kind was not prepared', { kind: job.kind });
      await queueFor(job.kind);
      await send(db, job.kind, { payload: job.payload, attempts: 0, failures: 0 }, job.runAt - job.createdAt);
    },
    async pending(kinds) {
      await start();
      const names = kinds ?? (await boss.getQueues()).map((queue) => queue.name);
      // Jobs created, waiting for a retry or active: every state before `completed`.
      const sizes = await Promise.all(names.map((name) => boss.getQueueSize(name, { before: 'completed' })));
      return sizes.reduce((sum, size) => sum + Number(size ?? 0), 0);
    },
    async hasUnfinished(tx, kind, fields) {
      await start();
      // A rescheduled job is a new row carrying the same payload; a job given up is `failed`.
      // SQL: pg-boss 10 cannot search jobs by their data (nor inside the caller's transaction).
      const { rows } = await inTransaction(tx).executeSql(
        `SELECT 1 FROM ${schema}.job WHERE name = $1 AND state < 'completed' AND data -> 'payload' @> $2::jsonb LIMIT 1`,
        [kind, JSON.stringify(fields)],
      );
      return rows.length > 0;
    },
    // Queue depth and lag for /metrics, from pg-boss's table on the database's clock.
    async stats() {
      await start();
      // SQL: pg-boss 10's getQueueSize counts below one state; it cannot split due from scheduled nor give the lag.
      const { rows } = await postgresOf(persistence).query(
        `SELECT name AS kind,
           count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS due,
           count(*) FILTER (WHERE state = 'active')::int AS running,
           count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
           COALESCE(round(extract(epoch FROM now() - min(start_after) FILTER (WHERE state < 'active' AND start_after <= now())) * 1000), 0)::float8 AS lag_ms
         FROM ${schema}.job WHERE state < 'completed' GROUP BY name ORDER BY name`,
      );
      return rows.map((row) => ({
        kind: row.kind,
        due: row.due,
        running: row.running,
        scheduled: row.scheduled,
        lagMs: row.lag_ms,
      }));
    },
  };
}
