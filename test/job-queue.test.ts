import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { jobQueueContract } from './contract/job-queue.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

jobQueueContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-queue-'));
  const file = path.join(dir, 'test.db');
  return { open: () => openSqlite(file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

let postgres: PostgresTestServer | undefined;
jobQueueContract('postgres', async () => {
  postgres ??= await startPostgresTestServer();
  const url = await postgres.createDatabase();
  return { open: () => openPostgres(url) };
});
after(async () => postgres?.stop());
