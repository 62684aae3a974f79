import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { cachedStatements } from '../plugins/store-kysely/sqlite-statements.ts';

describe("the SQLite statements Kysely's driver runs", () => {
  let dir: string;
  let database: BetterSqlite3.Database;
  let statements: SqliteDatabase;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-statements-'));
    database = new BetterSqlite3(path.join(dir, 'statements.db'));
    database.pragma('journal_mode = WAL');
    database.exec(`
      create table items (id text primary key, n integer);
      insert into items values ('a', 1), ('b', 2);`);
    statements = cachedStatements(database);
  });
  after(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("are prepared once per SQL text and run with each call's values", () => {
    const sql = 'select * from items where id = ?';
    const statement = statements.prepare(sql);
    assert.equal(statements.prepare(sql), statement);
    assert.deepEqual(statements.prepare(sql).all(['a']), [{ id: 'a', n: 1 }]);
    assert.deepEqual(statements.prepare(sql).all(['b']), [{ id: 'b', n: 2 }]);
    const update = statements.prepare('update items set n = n + 1 where id = ?');
    assert.equal(update.reader, false);
    assert.equal(update.run(['a']).changes, 1);
    assert.equal(update.run(['nobody']).changes, 0);
  });

  it('keep at most their bound, dropping the oldest', () => {
    const bounded = cachedStatements(database, 2);
    const first = bounded.prepare('select 1');
    bounded.prepare('select 2');
    assert.equal(bounded.prepare('select 1'), first);
    bounded.prepare('select 3');
    assert.notEqual(bounded.prepare('select 1'), first);
  });

  it('follow a schema change made by another connection', () => {
    const sql = 'select * from items where id = ?';
    assert.deepEqual(statements.prepare(sql).all(['a']), [{ id: 'a', n: 2 }]);
    const other = new BetterSqlite3(path.join(dir, 'statements.db'));
    try {
      other.exec(`alter table items add column added text not null default 'new'`);
    } finally {
      other.close();
    }
    assert.deepEqual(statements.prepare(sql).all(['a']), [{ id: 'a', n: 2, added: 'new' }]);
  });
});
