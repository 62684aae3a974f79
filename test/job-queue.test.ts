import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { jobQueueContract, type JobQueueDeps } from 'visualizer/testing';
import type { Persistence } from 'visualizer/plugin';
import { createDbQueue } from '../plugins/queue-db/db-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { dbQueueHooks } from './support/db-queue-hooks.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const dbQueue = (persistence: Persistence, { clock, ids, logger, ...settings }: JobQueueDeps) =>
  createDbQueue({ persistence, clock, ids, logger }, settings);

jobQueueContract({
  name: 'db on sqlite',
  create: () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-queue-'));
    return { dir, open: () => openSqlite(path.join(dir, 'test.db')) };
  },
  dispose: ({ dir }) => rmSync(dir, { recursive: true, force: true }),
  createQueue: dbQueue,
  ...dbQueueHooks,
  unavailableError: () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
  // Other processes' commits are found by polling; in one process the handles share one connection.
  signalsOtherProcesses: false,
  sharedConnection: true,
});

let postgres: PostgresTestServer | undefined;
jobQueueContract({
  name: 'db on postgres',
  create: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    return { url, open: () => openPostgres(url) };
  },
  openSingleConnection: ({ url }) => openPostgres(url, { poolSize: 1, connectTimeoutMs: 2_000 }),
  createQueue: dbQueue,
  ...dbQueueHooks,
  unavailableError: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  // LISTEN/NOTIFY wakes every process's workers when a job commits.
  signalsOtherProcesses: true,
  // Run times and leases are kept on the server's clock (store-kysely/database-clock.ts).
  usesDatabaseClock: true,
});
after(async () => postgres?.stop());
