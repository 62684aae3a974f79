import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from '../plugins/store-kysely/kysely.ts';
import type { NewApiKey } from '../core/domain/api-keys.ts';
import type { Persistence, Repositories } from '../core/ports/persistence/index.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import type { Database } from '../plugins/store-kysely/database.ts';
import { prepared, preparedInsert } from '../plugins/store-kysely/prepared.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';

describe('prepared queries', () => {
  let db: Kysely<Database>;
  const statements: string[] = [];

  before(async () => {
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
      log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
    });
    await sql`create table events (id text primary key, organization_id text not null, type text not null, body text not null, created_at bigint not null)`.execute(
      db,
    );
  });
  after(() => db.destroy());

  it("builds once and runs with each call's values, constants kept", async () => {
    const insert = preparedInsert('events');
    for (const n of [1, 2, 3])
      await insert(db, 'sqlite', {
        id: `evt_${n}`,
        organization_id: 'org_a',
        type: 'generation.completed',
        body: `{"n":${n}}`,
        created_at: n,
      });
    let builds = 0;
    const ofType = prepared((db, values: { organizationId: string; after: number }) => {
      builds += 1;
      return db
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', values.organizationId)
        .where('type', '=', 'generation.completed')
        .where('created_at', '>', values.after)
        .orderBy('id');
    });
    assert.deepEqual((await ofType(db, 'sqlite', { organizationId: 'org_a', after: 1 })).rows, [
      { id: 'evt_2' },
      { id: 'evt_3' },
    ]);
    assert.deepEqual((await ofType(db, 'sqlite', { organizationId: 'org_a', after: 2 })).rows, [{ id: 'evt_3' }]);
    assert.deepEqual((await ofType(db, 'sqlite', { organizationId: 'org_b', after: 0 })).rows, []);
    assert.equal(builds, 1, 'built and compiled once for the dialect');
    assert.equal(
      new Set(statements.filter((statement) => statement.startsWith('select'))).size,
      1,
      'one SQL text for all three runs',
    );
  });

  it('refuses a stand-in that Kysely would not bind as a parameter, naming it', async () => {
    const literal = prepared((db, values: { type: string }) =>
      db.selectFrom('events').select('id').where('type', '=', sql.lit(values.type)),
    );
    await assert.rejects(
      () => literal(db, 'sqlite', { type: 'generation.completed' }),
      /prepared query: type did not become bound parameters/,
    );
    // Bound once and inlined once is refused too: the inlined copy would never change.
    const both = prepared((db, values: { id: string }) =>
      db.selectFrom('events').select('id').where('id', '=', values.id).where(sql.lit(values.id), '=', 'x'),
    );
    await assert.rejects(
      () => both(db, 'sqlite', { id: 'evt_1' }),
      /prepared query: id did not become bound parameters/,
    );
  });
});

describe('prepared queries on the SQLite store', () => {
  let dir: string;
  let store: Persistence;
  let organizationId: string;
  const newKey = (hash: string): NewApiKey => ({
    id: randomIds.id('key_'),
    organizationId,
    kind: 'secret',
    name: null,
    displayPrefix: 'sk_test_…',
    keyHash: hash,
    createdAt: Date.now(),
  });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'prepared-'));
    store = openSqlite(path.join(dir, 'store.db'));
    await store.migrate();
    organizationId = randomIds.id('org_');
    await store.organizations.create({ id: organizationId, name: 'Prepared', createdAt: Date.now() });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('outside a transaction, wait for an open one rather than read its uncommitted writes', async () => {
    let inserted!: () => void;
    const wasInserted = new Promise<void>((resolve) => (inserted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = store.transaction(async (tx) => {
      await tx.apiKeys.create(newKey('hash-uncommitted'));
      inserted();
      await released;
      throw new Error('changed my mind');
    });
    await wasInserted;
    let readSettled = false;
    const read = store.apiKeys.findByHash('hash-uncommitted').finally(() => (readSettled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(readSettled, false, 'the read waits while the transaction is open');
    release();
    await assert.rejects(rolledBack, /changed my mind/);
    assert.equal(await read, null, 'and never sees the rolled-back row');
  });

  it('on a transaction that has ended, are refused rather than run outside it', async () => {
    let kept: Repositories | undefined;
    await store.transaction(async (tx) => {
      kept = tx;
      await tx.apiKeys.create(newKey('hash-kept'));
    });
    await assert.rejects(() => kept!.apiKeys.findByHash('hash-kept'), /already committed/);
  });
});
