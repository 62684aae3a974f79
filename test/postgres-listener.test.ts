/**
 * The Postgres adapter's job signal (LISTEN/NOTIFY) survives losing its connection: killed by
 * the server, and refused for a while after that. Workers still poll meanwhile (see the job-queue
 * contract); this is about jobs starting at once again afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { jobsChannel } from '../core/ports/job-queue.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { waitFor } from './support/wait-for.ts';

describe('postgres job signal', { timeout: 120_000 }, () => {
  let server: PostgresTestServer;
  let persistence: Persistence;
  /** On another database, so it may refuse connections to the adapter's. */
  let admin: pg.Client;
  /** On the adapter's database (NOTIFY is per database), connected before any refusal. */
  let notifier: pg.Client;
  let unlisten: () => Promise<void>;
  let signals = 0;
  let database: string;

  /** The backends of this database that are LISTENing (the adapter's listener), other than ours. */
  const listeners = async () =>
    (
      await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN%'`,
        [database],
      )
    ).rows.map((row) => row.pid);

  const terminateListener = async () => {
    const pids = await listeners();
    assert.equal(pids.length, 1, 'exactly one listening connection');
    await admin.query('SELECT pg_terminate_backend($1)', [pids[0]]);
    await waitFor('the listener to be gone', async () => !(await listeners()).includes(pids[0]!), 30_000);
  };

  /** A NOTIFY from another connection, as another process committing a job sends it, reaches the listener. */
  const assertSignalled = async () => {
    const before = signals;
    await notifier.query(`NOTIFY ${jobsChannel}`);
    await waitFor('the notification', () => signals > before, 5_000);
  };

  before(async () => {
    server = await startPostgresTestServer();
    const url = await server.createDatabase();
    database = new URL(url).pathname.slice(1);
    persistence = openPostgres(url);
    admin = new pg.Client({ connectionString: await server.createDatabase() });
    notifier = new pg.Client({ connectionString: url });
    await Promise.all([admin.connect(), notifier.connect()]);
    unlisten = await persistence.listenForJobs!(() => signals++);
  });

  after(async () => {
    await unlisten?.();
    await admin?.end();
    await notifier?.end();
    await persistence?.close();
    await server?.stop();
  });

  it('listens again after the server terminates its connection, and signals once on reconnecting', async () => {
    await assertSignalled();
    await terminateListener();
    const before = signals;
    await waitFor('a new listening connection', async () => (await listeners()).length === 1, 30_000);
    // Jobs committed during the gap were never notified: the reconnect itself wakes the workers.
    await waitFor('the catch-up signal', () => signals > before, 5_000);
    await assertSignalled();
  });

  it('keeps trying while the database refuses connections, and listens again once it accepts them', async () => {
    const quoted = `"${database.replaceAll('"', '""')}"`;
    await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS false`);
    try {
      await terminateListener();
      // Reconnect attempts come 1 s and then 3 s after the loss; both are refused.
      await sleep(3_500);
      assert.deepEqual(await listeners(), [], 'no connection while refused');
    } finally {
      await admin.query(`ALTER DATABASE ${quoted} WITH ALLOW_CONNECTIONS true`);
    }
    await waitFor('a new listening connection', async () => (await listeners()).length === 1, 40_000);
    await assertSignalled();
  });
});
