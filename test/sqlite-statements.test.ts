import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { statementRunner } from '../plugins/store-kysely/sqlite-statements.ts';

/** What Kysely's SQLite driver would return: better-sqlite3's own named rows. */
const namedRows = (database: BetterSqlite3.Database, sql: string, parameters: unknown[] = []) => database.prepare(sql).all(parameters);

/** deepEqual ignores key order; a row's columns come in the statement's order. */
function assertSameRows(actual: unknown[], expected: unknown[]) {
  assert.deepEqual(actual, expected);
  assert.deepEqual(actual.map((row) => Object.keys(row as object)), expected.map((row) => Object.keys(row as object)));
  for (const row of actual) assert.equal(Object.getPrototypeOf(row), Object.prototype);
}

describe('SQLite statements run on the handle', () => {
  let dir: string;
  let database: BetterSqlite3.Database;
  let run: ReturnType<typeof statementRunner>;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-statements-'));
    database = new BetterSqlite3(path.join(dir, 'statements.db'));
    database.pragma('journal_mode = WAL');
    database.exec(`
      create table items (id text primary key, n integer, r real, data blob, note text, "odd ""name""" text);
      insert into items values ('a', 1, 1.5, x'00ff', null, 'q'), ('b', 2, -0.25, null, 'two', null);
      create table tags (id text, item_id text);
      insert into tags values ('t1', 'a');`);
    run = statementRunner(database);
  });
  after(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('give the rows better-sqlite3 names itself: every column, in order, with its type', () => {
    const sql = 'select * from items where id >= ? order by id';
    for (let i = 0; i < 3; i++) assertSameRows(run(sql, ['a']).rows, namedRows(database, sql, ['a']));
    assert.deepEqual(run(sql, ['z']).rows, []);
    const [first] = run(sql, ['a']).rows as Array<Record<string, unknown>>;
    assert.ok(Buffer.isBuffer(first!.data));
    assert.equal(first!['odd "name"'], 'q');
  });

  it('keep the last of two columns with one name, as named rows do', () => {
    const sql = 'select items.id, tags.id from items join tags on tags.item_id = items.id';
    assertSameRows(run(sql, []).rows, namedRows(database, sql));
    assert.deepEqual(run(sql, []).rows, [{ id: 't1' }]);
  });

  it('keep a column named __proto__ as a column, not as the prototype', () => {
    const sql = `select 'x' as "__proto__", id from items where id = ?`;
    const [row] = run(sql, ['a']).rows as Array<Record<string, unknown>>;
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 'x');
    assert.equal(row!.id, 'a');
  });

  it('follow a schema change made by another connection', () => {
    const sql = 'select * from items where id = ?';
    assert.equal(Object.keys(run(sql, ['a']).rows[0] as object).length, 6);
    const other = new BetterSqlite3(path.join(dir, 'statements.db'));
    try {
      other.exec(`alter table items add column added text not null default 'new'`);
    } finally {
      other.close();
    }
    assertSameRows(run(sql, ['a']).rows, namedRows(database, sql, ['a']));
    assert.equal((run(sql, ['a']).rows[0] as Record<string, unknown>).added, 'new');
  });

  it('report what a write changed, as Kysely does', () => {
    const result = run('insert into tags (id, item_id) values (?, ?)', ['t2', 'b']);
    assert.deepEqual(result.rows, []);
    assert.equal(result.numAffectedRows, 1n);
    assert.equal(typeof result.insertId, 'bigint');
    assert.equal(run('update tags set item_id = ? where item_id = ?', ['c', 'nobody']).numAffectedRows, 0n);
  });
});
