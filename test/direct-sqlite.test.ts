import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { Transaction } from 'kysely';
import { CompiledQuery, type Kysely, sql } from '../plugins/store-kysely/kysely.ts';
import type { Executor } from '../plugins/store-kysely/database.ts';
import { laneOf } from '../plugins/store-kysely/direct-sqlite.ts';
import { prepared } from '../plugins/store-kysely/prepared.ts';
import { sqliteKysely } from '../plugins/store-kysely/sqlite.ts';

interface Tables {
  parents: { id: number };
}

// Prepared queries are typed for the store's schema; this test's table stands in for it.
const asExecutor = (db: Kysely<Tables> | Transaction<Tables>) => db as unknown as Executor;
const count = prepared(
  (db) =>
    (db as unknown as Kysely<Tables>).selectFrom('parents').select((eb) => eb.fn.countAll<number>().as('n')) as never,
);
const insert = prepared(
  (db, values: { id: number }) =>
    (db as unknown as Kysely<Tables>).insertInto('parents').values({ id: values.id }) as never,
);
const countOn = async (db: Kysely<Tables> | Transaction<Tables>) =>
  ((await count(asExecutor(db), 'sqlite', {})).rows[0] as { n: number }).n;

describe('direct SQLite lane (prepared statements straight on better-sqlite3)', () => {
  let dir: string;
  let database: BetterSqlite3.Database;
  let db: Kysely<Tables>;
  let transaction: ReturnType<typeof sqliteKysely<Tables>>['transaction'];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'direct-sqlite-'));
    database = new BetterSqlite3(path.join(dir, 'test.db'));
    database.pragma('journal_mode = WAL');
    ({ db, transaction } = sqliteKysely<Tables>(database));
    await sql`create table parents (id integer primary key)`.execute(db);
  });

  beforeEach(async () => {
    await db.deleteFrom('parents').execute();
  });

  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a read on the pool while a transaction holds the connection waits for its commit, never seeing its rows before', async () => {
    const order: string[] = [];
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const writing = transaction(async (tx) => {
      await insert(asExecutor(tx), 'sqlite', { id: 1 });
      inserted();
      await sleep(50);
      order.push('committing');
    }).then(() => order.push('committed'));
    await insertedYet;
    // The row is in the open transaction on the one connection: run there, the read would see it now.
    const n = await countOn(db);
    order.push(`read ${n}`);
    await writing;
    assert.deepEqual(order, ['committing', 'committed', 'read 1']);
  });

  it('runs on the pool at once when no transaction is open', async () => {
    assert.ok(laneOf(db)?.('select 1', []), "the pool's lane runs");
    await insert(asExecutor(db), 'sqlite', { id: 7 });
    assert.equal(await countOn(db), 1);
  });

  it("rolls a unit's statements back with its savepoint; the batch's other units commit", async () => {
    const settled = await Promise.allSettled([
      transaction(async (tx) => insert(asExecutor(tx), 'sqlite', { id: 1 })),
      transaction(async (tx) => {
        await insert(asExecutor(tx), 'sqlite', { id: 2 });
        throw new Error('changed its mind');
      }),
      transaction(async (tx) => insert(asExecutor(tx), 'sqlite', { id: 3 })),
    ]);
    assert.deepEqual(
      settled.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      (await db.selectFrom('parents').select('id').orderBy('id').execute()).map((row) => row.id),
      [1, 3],
    );
  });

  it("closes a transaction's lane when it ends: a statement on it afterwards takes Kysely's path", async () => {
    let kept: Transaction<Tables> | undefined;
    await transaction(async (tx) => {
      kept = tx;
      assert.ok(laneOf(tx)?.('select 1', []), 'open while the transaction is');
    });
    assert.equal(laneOf(kept!)?.('select 1', []), undefined);
  });

  it("shapes results as Kysely's SQLite driver does", async () => {
    const lane = laneOf(db)!;
    const viaKysely = async (query: string, parameters: unknown[]) =>
      db.executeQuery(CompiledQuery.raw(query, parameters));
    await sql`create table if not exists shaped (id integer primary key, name text)`.execute(db);
    assert.deepEqual(
      lane('insert into shaped (name) values (?)', ['a']),
      await viaKysely('insert into shaped (name) values (?)', ['b']).then((result) => ({ ...result, insertId: 1n })),
    );
    assert.deepEqual(
      lane('select * from shaped order by id', []),
      await viaKysely('select * from shaped order by id', []),
    );
    assert.deepEqual(
      lane('update shaped set name = ? returning id', ['c']),
      await viaKysely('update shaped set name = ? returning id', ['c']),
    );
  });
});
