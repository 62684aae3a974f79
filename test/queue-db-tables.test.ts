import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { Persistence } from 'visualizer/plugin';
import { testIds } from '../kit/testing/ids.ts';
import { tenantService } from '../core/services/tenants.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { queueDbTablesSuite } from './support/queue-db-tables.ts';

/** The queue's tables on each Kysely database, on a migrated database with several handles, as the persistence contract runs. */
function onDatabase(name: string, create: () => Promise<{ open(): Persistence; dispose?(): void }>) {
  describe(`the queue's tables: ${name}`, () => {
    let database: Awaited<ReturnType<typeof create>> | undefined;
    let store: Persistence;
    const handles: Persistence[] = [];
    const open = () => {
      const handle = database!.open();
      handles.push(handle);
      return handle;
    };
    before(async () => {
      database = await create();
      store = open();
      await store.migrate();
    });
    after(async () => {
      for (const handle of handles) await handle.close();
      database?.dispose?.();
    });
    queueDbTablesSuite({
      store: () => store,
      open,
      tenants: () => tenantService({ persistence: store, ids: testIds, clock: { now: () => Date.now() } }),
    });
  });
}

onDatabase('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-queue-tables-'));
  return {
    open: () => openSqlite(path.join(dir, 'test.db')),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
});

let postgres: PostgresTestServer | undefined;
onDatabase('postgres', async () => {
  postgres ??= await startPostgresTestServer();
  const url = await postgres.createDatabase();
  return { open: () => openPostgres(url) };
});
after(async () => postgres?.stop());
