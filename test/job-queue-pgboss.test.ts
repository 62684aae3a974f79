import { after } from 'node:test';
import PgBoss from 'pg-boss';
import { jobQueueContract, type ClaimedJob, type JobQueueDeps } from 'visualizer/testing';
import type { Persistence } from 'visualizer/plugin';
import { onPool, sqlOf } from '../plugins/queue-pgboss/boss-db.ts';
import { createPgBossQueue } from '../plugins/queue-pgboss/pgboss-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { startPgBouncer, type PgBouncerTestServer } from './support/pgbouncer.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const schema = 'pgboss';

// pg-boss keeps time on the database's clock, so the suite's fast clock is not handed on; its
// maintenance (which expires lost leases) runs every second so a dead worker's job returns soon.
const pgbossQueue = (persistence: Persistence, { clock, logger, leaseMs, pollIntervalMs, maxAttempts, retryDelayMs }: JobQueueDeps) =>
  createPgBossQueue({ persistence, clock, logger }, { schema, leaseMs, pollIntervalMs, maxAttempts, retryDelayMs, maintenanceIntervalSeconds: 1, keepFailedDays: 1 });

/** A worker outside the queue under test, on pg-boss's own API. */
async function claimAs(persistence: Persistence, kind: string): Promise<ClaimedJob | undefined> {
  const boss = new PgBoss({ db: onPool(persistence) as PgBoss.Db, schema, supervise: false, schedule: false, migrate: false });
  const [job] = (await boss.fetch(kind, { includeMetadata: true })) as unknown as { id: string; retryCount: number; data: { attempts: number; failures: number } }[];
  if (!job) return undefined;
  const affected = (result: unknown) => (result as { affected: number }).affected === 1;
  return {
    id: job.id,
    attempts: job.data.attempts + job.retryCount + 1,
    failures: job.data.failures + job.retryCount,
    complete: async () => affected(await boss.complete(kind, job.id)),
    reschedule: async () => affected(await boss.fail(kind, job.id)),
  };
}

const common = {
  createQueue: pgbossQueue,
  unavailableError: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  // pg-boss polls; LISTEN would not pass PgBouncer in transaction mode anyway.
  signalsOtherProcesses: false,
  usesDatabaseClock: true,
  fencesLostLeases: false,
  minLeaseMs: 1_000,
  claimAs,
  pendingIn: async (tx: Parameters<typeof sqlOf>[0], kind: string) => {
    const { rows } = await sqlOf(tx).query(`SELECT count(*)::int AS count FROM ${schema}.job WHERE name = $1 AND state < 'completed'`, [kind]);
    return rows[0].count as number;
  },
  // The pgboss queue writes a postponed run's outcome in a transaction of the store.
  refuseOutcomes(persistence: Persistence, refuse: () => boolean, error: () => Error) {
    const transaction = persistence.transaction.bind(persistence);
    persistence.transaction = async (work) => {
      if (refuse()) throw error();
      return transaction(work);
    };
  },
};

let postgres: PostgresTestServer | undefined;
let pgbouncer: PgBouncerTestServer | undefined;

jobQueueContract({
  name: 'pgboss on postgres',
  create: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    return { open: () => openPostgres(url) };
  },
  ...common,
});

// Every connection through the pooler in transaction mode, pg-boss's schema creation included.
jobQueueContract({
  name: 'pgboss on postgres behind pgbouncer (transaction mode)',
  create: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    pgbouncer ??= await startPgBouncer(url);
    const pooled = pgbouncer.url(url);
    // The store's own migrations need a session (a direct URL); pg-boss's take transaction-scoped locks.
    return { open: () => openPostgres(pooled, { pooled: true, directUrl: url }) };
  },
  ...common,
});

after(async () => {
  await pgbouncer?.stop();
  await postgres?.stop();
});
