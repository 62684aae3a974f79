import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tenantService } from '../core/services/tenants.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { persistenceContract } from './contract/persistence.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

persistenceContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-sqlite-'));
  const file = path.join(dir, 'test.db');
  return { open: () => openSqlite(file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

let postgres: PostgresTestServer | undefined;
persistenceContract('postgres', async () => {
  postgres ??= await startPostgresTestServer();
  const url = await postgres.createDatabase();
  return { open: () => openPostgres(url) };
});
after(async () => postgres?.stop());

describe('sqlite file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-sqlite-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('never writes a plain key to disk', async () => {
    const persistence = openSqlite(path.join(dir, 'keys.db'));
    await persistence.migrate();
    const { apiKey, conversionKey } = await tenantService({ persistence, ids: randomIds, clock: { now: Date.now } }).createOrganization({ name: 'Disk', credits: 1 });
    await persistence.close();
    const bytes = readdirSync(dir).map((name) => readFileSync(path.join(dir, name)).toString('latin1')).join('');
    assert.ok(bytes.includes('Disk'), 'the organization reached the file');
    assert.ok(!bytes.includes(apiKey.key.slice(11)) && !bytes.includes(conversionKey.key.slice(4)), 'no key body is on disk');
  });
});
