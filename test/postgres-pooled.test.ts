/**
 * Postgres behind a real PgBouncer in transaction mode (Debian's pgbouncer 1.18): the persistence
 * and job-queue contracts through it with a direct URL for what needs a session, wake-ups by
 * LISTEN on that direct URL, `migrate` through it, polling and a refusing `migrate` without it;
 * and run times and leases on the database's clock, so workers with skewed clocks stay correct.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { jobQueueContract, persistenceContract, type JobQueueDeps } from 'visualizer/testing';
import {
  RetryJob,
  type Clock,
  type JobQueue,
  type Logger,
  type Persistence,
  type QueuedJob,
  type Repositories,
} from 'visualizer/plugin';
import { createDbQueue, type DbQueueOptions } from '../plugins/queue-db/db-queue.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';
import { migrateNeedsDirectUrl, openPostgres } from '../plugins/store-kysely/postgres.ts';
import { dbQueueHooks } from './support/db-queue-hooks.ts';
import { startPgBouncer, type PgBouncerTestServer } from './support/pgbouncer.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { cli } from './support/cli.ts';
import { testIds } from '../kit/testing/ids.ts';
import { waitFor } from './support/wait-for.ts';

const root = path.join(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);

let server: PostgresTestServer | undefined;
let bouncer: PgBouncerTestServer | undefined;

/** A fresh database on the shared test server, by its direct URL and through the shared pooler. */
async function pooledDatabase(): Promise<{ direct: string; pooled: string }> {
  server ??= await startPostgresTestServer();
  const direct = await server.createDatabase();
  bouncer ??= await startPgBouncer(direct);
  return { direct, pooled: bouncer.url(direct) };
}
after(async () => {
  await bouncer?.stop();
  await server?.stop();
});

const unavailableError = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6432'), { code: 'ECONNREFUSED' });
const silentLogger: Logger = { info() {}, warn() {}, error() {} };

persistenceContract({
  name: 'postgres through PgBouncer (transaction mode) with a direct URL',
  create: async () => {
    const { direct, pooled } = await pooledDatabase();
    return { open: () => openPostgres(pooled, { pooled: true, directUrl: direct }) };
  },
  unavailableError,
  embedded: false,
});

jobQueueContract({
  name: 'db on postgres through PgBouncer (transaction mode) with a direct URL',
  create: async () => {
    const { direct, pooled } = await pooledDatabase();
    return { direct, pooled, open: () => openPostgres(pooled, { pooled: true, directUrl: direct }) };
  },
  openSingleConnection: ({ direct, pooled }) =>
    openPostgres(pooled, { pooled: true, directUrl: direct, poolSize: 1, connectTimeoutMs: 2_000 }),
  createQueue: (persistence: Persistence, { clock, ids, logger, ...settings }: JobQueueDeps) =>
    createDbQueue({ persistence, clock, ids, logger }, settings),
  ...dbQueueHooks,
  unavailableError,
  // LISTEN on the direct URL.
  signalsOtherProcesses: true,
  usesDatabaseClock: true,
});

describe('postgres behind PgBouncer in transaction mode', { timeout: 120_000 }, () => {
  let direct: string;
  let pooled: string;
  const handles: Persistence[] = [];
  const queues: JobQueue[] = [];

  const open = (options: { directUrl?: string } = {}) => {
    const handle = openPostgres(pooled, { pooled: true, ...options });
    handles.push(handle);
    return handle;
  };
  const queueOn = (
    persistence: Persistence,
    options: Partial<DbQueueOptions> = {},
    clock: Clock = { now: () => Date.now() },
  ) => {
    const queue = createDbQueue(
      { persistence, clock, ids: testIds, logger: silentLogger },
      { leaseMs: 30_000, pollIntervalMs: 20, maxAttempts: 5, ...options },
    );
    queues.push(queue);
    return queue;
  };
  let kinds = 0;
  const newKind = (name: string) => `pooled.${name}.${++kinds}`;
  const enqueue = (
    persistence: Persistence,
    kind: string,
    clock: Clock = { now: () => Date.now() },
    payload: unknown = {},
  ) =>
    persistence.transaction((tx) =>
      jobsOf(tx).enqueue({ id: testIds.id('job_'), kind, payload, runAt: clock.now(), createdAt: clock.now() }),
    );

  before(async () => {
    ({ direct, pooled } = await pooledDatabase());
    await open({ directUrl: direct }).migrate();
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.stop()));
  });
  after(async () => {
    for (const handle of handles) await handle.close();
  });

  it("the test pooler is PgBouncer in transaction mode: one client's statements run on whichever server session is free", async () => {
    // A database of its own, so its server pool starts empty.
    const { pooled: fresh } = await pooledDatabase();
    const [a, b] = [new pg.Client({ connectionString: fresh }), new pg.Client({ connectionString: fresh })];
    await Promise.all([a.connect(), b.connect()]);
    const pid = async (client: pg.Client) =>
      (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    try {
      const first = await pid(b);
      await a.query('begin');
      assert.equal(await pid(a), first, 'a transaction takes the idle server session b used');
      const second = await pid(b);
      await a.query('commit');
      // In session mode b would keep its own server session for good.
      assert.notEqual(second, first, "b's next statement ran on another server session");
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('starts a job enqueued by another process promptly, woken by LISTEN on the direct URL (the poll interval is 60 s)', async () => {
    const kind = newKind('listen');
    let startedAt: number | undefined;
    const queue = queueOn(open({ directUrl: direct }), { pollIntervalMs: 60_000 });
    await queue.work({ [kind]: async () => void (startedAt ??= Date.now()) }, { concurrency: 1 });
    await sleep(300); // the first (empty) claim is done: the lane sleeps until woken
    const script = `
      import { openPostgres } from ${JSON.stringify(path.join(root, 'plugins/store-kysely/postgres.ts'))};
      import { jobsOf } from ${JSON.stringify(path.join(root, 'plugins/queue-db/tables.ts'))};
      const persistence = openPostgres(process.env.POOLED_URL, { pooled: true });
      const now = Date.now();
      await persistence.transaction((tx) => jobsOf(tx).enqueue({ id: 'job_child_' + now, kind: process.env.KIND, payload: {}, runAt: now, createdAt: now }));
      await persistence.close();`;
    await execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, POOLED_URL: pooled, KIND: kind },
    });
    await waitFor('the job to start (a poll would take 60 s)', () => startedAt !== undefined);
  });

  it('without a direct URL, has no LISTEN and workers find jobs by polling', async () => {
    const polling = open();
    assert.equal(polling.listenForJobs, undefined, 'nothing listens through a transaction-mode pooler');
    const kind = newKind('poll');
    let ran = 0;
    const queue = queueOn(polling, { pollIntervalMs: 200 });
    await queue.work({ [kind]: async () => void ran++ }, { concurrency: 1 });
    await enqueue(open(), kind); // another handle, and nobody calls notify()
    await waitFor('the polled job to run', () => ran === 1);
  });

  it('wakes only the lane that works the notified kind: a job of kind A claims nothing for kind B', async () => {
    const kindA = newKind('wake-a');
    const kindB = newKind('wake-b');
    const persistence = open({ directUrl: direct });
    const claims: string[][] = [];
    // The same handle, with each claim's kinds recorded.
    const observed: Persistence = {
      ...persistence,
      transaction: (work) =>
        persistence.transaction((tx) => {
          const observedTx: Repositories = Object.create(tx);
          const jobs = jobsOf(observedTx);
          const claim = jobs.claim.bind(jobs);
          jobs.claim = (options) => (claims.push(options.kinds), claim(options));
          return work(observedTx);
        }),
    };
    const ran: string[] = [];
    const queue = queueOn(observed, { pollIntervalMs: 60_000 });
    await queue.work({ [kindA]: async () => void ran.push(kindA) }, { concurrency: 2 });
    await queue.work({ [kindB]: async () => void ran.push(kindB) }, { concurrency: 2 });
    await waitFor("each lane's first claim", () => claims.length >= 2);
    await sleep(300);
    claims.length = 0;

    await enqueue(open(), kindA); // from another handle: only the notification wakes the queue
    await waitFor('the job of kind A to run', () => ran.includes(kindA));
    await sleep(300); // a claim of the other lane would show up here
    assert.ok(claims.length > 0, 'the lane of kind A claimed');
    assert.deepEqual(
      claims.filter((kinds) => kinds.includes(kindB)),
      [],
      'the lane of kind B did not claim',
    );

    await enqueue(open(), kindB);
    await waitFor('the job of kind B to run', () => ran.includes(kindB));
  });

  describe('workers with clocks five minutes apart', () => {
    const skewMs = 5 * 60_000;
    const ahead: Clock = { now: () => Date.now() + skewMs };
    const behind: Clock = { now: () => Date.now() - skewMs };

    it('never take over a live lease held by the other', async () => {
      const kind = newKind('skew-live');
      const leaseMs = 600;
      const runs: { by: string; attempts: number }[] = [];
      const handler = (by: string) => async (job: QueuedJob) => {
        runs.push({ by, attempts: job.attempts });
        await sleep(3 * leaseMs); // outlives three leases: only the heartbeat keeps it
      };
      const slow = queueOn(open({ directUrl: direct }), { leaseMs }, behind);
      await slow.work({ [kind]: handler('behind') }, { concurrency: 1 });
      // Enqueued by a host ahead of the database: due now all the same.
      await enqueue(open(), kind, ahead);
      await waitFor('the worker behind to start the job', () => runs.length === 1);
      const eager = queueOn(open({ directUrl: direct }), { leaseMs }, ahead);
      await eager.work({ [kind]: handler('ahead') }, { concurrency: 1 });
      const reader = open();
      await waitFor('the job to finish', async () => (await jobsOf(reader).pending([kind])) === 0);
      assert.deepEqual(
        runs,
        [{ by: 'behind', attempts: 1 }],
        'the worker ahead did not take the job its lease still held',
      );
    });

    it("take over a dead worker's job when its lease runs out on the database's clock, not the dead one's", async () => {
      const kind = newKind('skew-dead');
      const persistence = open();
      await enqueue(persistence, kind);
      // A worker ahead of the database claims the job for 500 ms and dies.
      const [claimed] = await jobsOf(persistence).claim({
        kinds: [kind],
        workerId: 'dead',
        now: ahead.now(),
        leaseMs: 500,
        limit: 1,
      });
      assert.ok(claimed);
      const runs: [attempts: number, failures: number][] = [];
      const queue = queueOn(open({ directUrl: direct }), {}, behind);
      await queue.work({ [kind]: async (job) => void runs.push([job.attempts, job.failures]) }, { concurrency: 1 });
      await waitFor(
        'the worker behind to take over the dead job',
        async () => runs.length === 1 && (await jobsOf(persistence).pending([kind])) === 0,
      );
      assert.deepEqual(runs, [[2, 1]], 'the lost lease counted as a failure');
    });

    it("run a retry one of them scheduled after its delay, not after the clocks' difference", async () => {
      const kind = newKind('skew-retry');
      const runs: [by: string, attempts: number][] = [];
      const first = queueOn(open({ directUrl: direct }), {}, ahead);
      await first.work(
        {
          [kind]: async (job) => {
            runs.push(['ahead', job.attempts]);
            throw new RetryJob(2_000, 'again in 2 s');
          },
        },
        { concurrency: 1 },
      );
      await enqueue(open(), kind, behind);
      await waitFor('the first run', () => runs.length === 1);
      await first.stop(); // the retry is recorded by now; the worker behind is left to run it
      const second = queueOn(open({ directUrl: direct }), {}, behind);
      await second.work({ [kind]: async (job) => void runs.push(['behind', job.attempts]) }, { concurrency: 1 });
      await waitFor('the worker behind to run the retry (the clocks are ten minutes apart)', () => runs.length === 2);
      assert.deepEqual(runs, [
        ['ahead', 1],
        ['behind', 2],
      ]);
    });
  });

  describe('migrate', () => {
    /** A fresh, empty database: through the pooler, and directly. */
    let fresh: { direct: string; pooled: string };
    let dataDir: string;
    before(async () => {
      fresh = await pooledDatabase();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-pooled-cli-'));
    });
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    it('with DATABASE_POOLED and no direct URL, refuses while migrations are pending and says to set DATABASE_DIRECT_URL', async () => {
      const persistence = openPostgres(fresh.pooled, { pooled: true });
      handles.push(persistence);
      await assert.rejects(persistence.migrate(), (error: Error) => error.message === migrateNeedsDirectUrl);
      const run = await cli(['migrate'], {
        DATABASE_URL: fresh.pooled,
        DATABASE_POOLED: 'true',
        VISUALIZER_DATA_DIR: dataDir,
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /set DATABASE_DIRECT_URL/);
      assert.ok((await persistence.pendingMigrations()).length > 0, 'nothing was migrated');
    });

    it('runs through DATABASE_DIRECT_URL while the pooled URL serves, and leaves no lock behind', async () => {
      const serving = openPostgres(fresh.pooled, { pooled: true });
      handles.push(serving);
      let served = 0;
      let serve = true;
      const traffic = (async () => {
        while (serve) {
          await serving.ping();
          served++;
          await sleep(20);
        }
      })();
      const run = await cli(['migrate', '--json'], {
        DATABASE_URL: fresh.pooled,
        DATABASE_POOLED: 'true',
        DATABASE_DIRECT_URL: fresh.direct,
        VISUALIZER_DATA_DIR: dataDir,
      });
      serve = false;
      await traffic;
      assert.equal(run.code, 0, run.stderr);
      assert.ok(JSON.parse(run.stdout).applied.length > 0, 'the migrations were applied');
      assert.ok(served > 0, 'the pooled URL answered meanwhile');
      assert.deepEqual(await serving.pendingMigrations(), [], 'the pooled handle sees the migrated schema');
      const client = new pg.Client({ connectionString: fresh.direct });
      await client.connect();
      try {
        const { rows } = await client.query(
          `select count(*)::int as locks from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
        );
        assert.deepEqual(rows, [{ locks: 0 }], 'the migration lock was released on its own session');
      } finally {
        await client.end();
      }
      // A second run finds the lock free (a lock left on a pooled session would hold it for an hour).
      const again = openPostgres(fresh.pooled, { pooled: true, directUrl: fresh.direct });
      handles.push(again);
      assert.deepEqual(await again.migrate(), { applied: [], indexesBuilt: [] });
      // With nothing pending, a handle without a direct URL has nothing to refuse (commands such as `orgs` migrate first).
      assert.deepEqual(await serving.migrate(), { applied: [] });
    });
  });
});
