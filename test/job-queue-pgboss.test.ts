import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import PgBoss from 'pg-boss';
import { jobQueueContract, type ClaimedJob, type JobQueueDeps } from 'visualizer/testing';
import type { Persistence } from 'visualizer/plugin';
import { silentLogger } from '../core/logger.ts';
import { waitFor } from '../kit/testing/wait-for.ts';
import { onPool, postgresOf } from '../plugins/queue-pgboss/boss-db.ts';
import { createPgBossQueue } from '../plugins/queue-pgboss/pgboss-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { startPgBouncer, type PgBouncerTestServer } from './support/pgbouncer.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const schema = 'pgboss';

// pg-boss keeps time on the database's clock, so the suite's fast clock is not handed on; its
// maintenance (which expires lost leases) runs every second so a dead worker's job returns soon.
const pgbossQueue = (
  persistence: Persistence,
  { clock, logger, leaseMs, pollIntervalMs, maxAttempts, retryDelayMs }: JobQueueDeps,
) =>
  createPgBossQueue(
    { persistence, clock, logger },
    { schema, leaseMs, pollIntervalMs, maxAttempts, retryDelayMs, maintenanceIntervalSeconds: 1, keepFailedDays: 1 },
  );

/** A worker outside the queue under test, on pg-boss's own API. */
async function claimAs(persistence: Persistence, kind: string): Promise<ClaimedJob | undefined> {
  const boss = new PgBoss({
    db: onPool(persistence) as PgBoss.Db,
    schema,
    supervise: false,
    schedule: false,
    migrate: false,
  });
  const [job] = (await boss.fetch(kind, { includeMetadata: true })) as unknown as {
    id: string;
    retryCount: number;
    data: { attempts: number; failures: number };
  }[];
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
  // A NOTIFY sent in the enqueuing transaction, heard through LISTEN on the store's session
  // connection (behind PgBouncer, its direct URL).
  signalsOtherProcesses: true,
  usesDatabaseClock: true,
  fencesLostLeases: false,
  minLeaseMs: 1_000,
  claimAs,
  pendingIn: async (tx: Parameters<typeof postgresOf>[0], kind: string) => {
    const { rows } = await postgresOf(tx).query(
      `SELECT count(*)::int AS count FROM ${schema}.job WHERE name = $1 AND state < 'completed'`,
      [kind],
    );
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
    return { url, open: () => openPostgres(url) };
  },
  openSingleConnection: ({ url }) => openPostgres(url, { poolSize: 1, connectTimeoutMs: 2_000 }),
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
    return { url, pooled, open: () => openPostgres(pooled, { pooled: true, directUrl: url }) };
  },
  openSingleConnection: ({ url, pooled }) =>
    openPostgres(pooled, { pooled: true, directUrl: url, poolSize: 1, connectTimeoutMs: 2_000 }),
  ...common,
});

/** The wake-ups that start another process's jobs without waiting for a poll (the contract checks the start itself). */
describe('pgboss wake-ups', () => {
  it('announces a committed due job to listening workers, and neither a rolled-back one nor one due later', async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const [listener, producer] = [openPostgres(url), openPostgres(url)];
    const queue = createPgBossQueue(
      { persistence: producer, clock: { now: () => Date.now() }, logger: silentLogger },
      {
        schema,
        leaseMs: 30_000,
        pollIntervalMs: 10_000,
        maxAttempts: 3,
        maintenanceIntervalSeconds: 30,
        keepFailedDays: 1,
      },
    );
    const heard: (string | undefined)[] = [];
    const unlisten = await listener.listenForJobs!((kind) => heard.push(kind));
    const enqueue = (kind: string, delayMs = 0) =>
      producer.transaction((tx) =>
        queue.enqueue(tx, { kind, payload: {}, runAt: Date.now() + delayMs, createdAt: Date.now() }),
      );
    try {
      await listener.migrate();
      await assert.rejects(
        producer.transaction(async (tx) => {
          await queue.enqueue(tx, { kind: 'wake.rolled_back', payload: {}, runAt: Date.now(), createdAt: Date.now() });
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await enqueue('wake.later', 60_000);
      await enqueue('wake.due');
      // Notifications arrive in commit order: had the earlier ones been sent, they would be here first.
      await waitFor('the committed job’s notification', () => heard.length > 0);
      assert.deepEqual(heard, ['wake.due']);
    } finally {
      await unlisten();
      await queue.stop();
      await Promise.all([listener.close(), producer.close()]);
    }
  });
});

after(async () => {
  await pgbouncer?.stop();
  await postgres?.stop();
});
