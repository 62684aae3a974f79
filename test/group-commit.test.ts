import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it, mock } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from '../plugins/store-kysely/kysely.ts';
import { groupCommit } from '../plugins/store-kysely/group-commit.ts';
import { ImmediateSqliteDialect, openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { randomIds } from '../plugins/ids-random/index.ts';

interface Tables {
  parents: { id: number };
  children: { id: number; parent_id: number };
}

describe('group commit (SQLite transactions)', () => {
  let dir: string;
  let file: string;
  let database: BetterSqlite3.Database;
  let db: Kysely<Tables>;
  let transaction: ReturnType<typeof groupCommit<Tables>>;
  const statements: string[] = [];
  const commits = () => statements.filter((statement) => statement === 'commit').length;
  const rows = async () => (await db.selectFrom('parents').select('id').orderBy('id').execute()).map((row) => row.id);

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
    file = path.join(dir, 'test.db');
    database = new BetterSqlite3(file);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    db = new Kysely<Tables>({
      // The store's own dialect: BEGIN IMMEDIATE, so a batch takes the write lock when it opens.
      dialect: new ImmediateSqliteDialect({ database }),
      log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
    });
    await sql`create table parents (id integer primary key)`.execute(db);
    await sql`create table children (id integer primary key, parent_id integer not null references parents (id))`.execute(
      db,
    );
    transaction = groupCommit(db);
  });

  beforeEach(async () => {
    await db.deleteFrom('children').execute();
    await db.deleteFrom('parents').execute();
    statements.length = 0;
  });

  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs transactions requested together in one commit, each in its own savepoint, each getting its own result', async () => {
    const settledAfterCommit: boolean[] = [];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        transaction(async (tx) => {
          await tx.insertInto('parents').values({ id: index }).execute();
          // Each sees the ones before it, as if they had committed one by one.
          return (
            await tx
              .selectFrom('parents')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n;
        }).then((result) => {
          settledAfterCommit.push(commits() === 1);
          return result;
        }),
      ),
    );
    assert.deepEqual(settledAfterCommit, Array(10).fill(true), 'no unit settles before the COMMIT');
    assert.deepEqual(results, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(commits(), 1, 'ten transactions, one commit');
    assert.equal(statements.filter((statement) => statement === 'savepoint unit').length, 10);
    assert.deepEqual(await rows(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('rolls a unit that throws back to its savepoint alone; it rejects with its own error, the others commit', async () => {
    const settled = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) =>
        transaction(async (tx) => {
          await tx.insertInto('parents').values({ id: index }).execute();
          if (index % 2 === 1) throw new Error(`unit ${index} changed its mind`);
          return index;
        }),
      ),
    );
    assert.deepEqual(
      settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      [0, 'unit 1 changed its mind', 2, 'unit 3 changed its mind', 4, 'unit 5 changed its mind'],
    );
    assert.equal(commits(), 1);
    assert.deepEqual(await rows(), [0, 2, 4]);
  });

  it('rejects every unit of a batch whose COMMIT fails', async () => {
    const good = transaction(async (tx) => {
      await tx.insertInto('parents').values({ id: 1 }).execute();
    });
    // A deferred foreign key is only checked at COMMIT, so this unit's own work succeeds.
    const poison = transaction(async (tx) => {
      await sql`pragma defer_foreign_keys = on`.execute(tx);
      await tx.insertInto('children').values({ id: 1, parent_id: 404 }).execute();
    });
    const [goodOutcome, poisonOutcome] = await Promise.allSettled([good, poison]);
    assert.equal(goodOutcome.status, 'rejected', 'a unit whose batch did not commit is not reported as committed');
    assert.equal(poisonOutcome.status, 'rejected');
    assert.match(String((goodOutcome as PromiseRejectedResult).reason), /FOREIGN KEY/);
    assert.deepEqual(await rows(), [], 'nothing of the failed batch is stored');

    await transaction(async (tx) => {
      await tx.insertInto('parents').values({ id: 2 }).execute();
    });
    assert.deepEqual(await rows(), [2], 'the next batch commits normally');
  });

  it('fails the units whose BEGIN could not get the write lock, and commits later ones', async () => {
    const other = new BetterSqlite3(file);
    database.pragma('busy_timeout = 50');
    other.exec('begin immediate');
    try {
      const settled = await Promise.allSettled(
        [1, 2].map((id) => transaction((tx) => tx.insertInto('parents').values({ id }).execute())),
      );
      assert.deepEqual(
        settled.map((outcome) => outcome.status),
        ['rejected', 'rejected'],
      );
      assert.match(String((settled[0] as PromiseRejectedResult).reason), /locked|busy/i);
    } finally {
      other.exec('rollback');
      other.close();
      database.pragma('busy_timeout = 5000');
    }
    await transaction((tx) => tx.insertInto('parents').values({ id: 3 }).execute());
    assert.deepEqual(await rows(), [3]);
  });

  it('is how the SQLite store runs transactions', async () => {
    const store = openSqlite(path.join(dir, 'store.db'));
    await store.migrate();
    // The store's statements are cached: count the runs of the savepoint statement, not its preparations.
    const probe = new BetterSqlite3(':memory:');
    const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as {
      run(...parameters: unknown[]): unknown;
    };
    probe.close();
    const run = mock.method(statementPrototype, 'run');
    try {
      await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          store.transaction((tx) =>
            tx.organizations.create({ id: randomIds.id('org_'), name: `Org ${index}`, createdAt: Date.now() }),
          ),
        ),
      );
      const savepoints = run.mock.calls.filter(
        (call) => (call.this as { source: string }).source === 'savepoint unit',
      ).length;
      assert.equal(savepoints, 5, 'five transactions requested together ran as savepoints of one');
    } finally {
      run.mock.restore();
      await store.close();
    }
  });
});
