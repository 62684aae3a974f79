import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Kysely, PostgresDialect, sql } from '../plugins/store-kysely/kysely.ts';
import pg from 'pg';
import {
  buildDeferredIndexes,
  createIndexConcurrently,
  pendingDeferredIndexes,
  withLockTimeout,
} from '../plugins/store-kysely/migrations/create-index-concurrently.ts';
import { bin, cli } from './support/cli.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { waitFor } from './support/wait-for.ts';

const run = promisify(execFile);

describe('migrations under live traffic (Postgres)', () => {
  let postgres: PostgresTestServer;
  let url = '';
  let db: Kysely<any>;
  /** Connections the test holds itself, as live traffic would. */
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };
  const indexValid = async (name: string) =>
    (
      await sql<{
        valid: boolean;
      }>`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`.execute(
        db,
      )
    ).rows[0]?.valid;

  before(async () => {
    postgres = await startPostgresTestServer();
    url = await postgres.createDatabase();
    await run(bin, ['migrate'], { env: { ...process.env, DATABASE_URL: url } });
    db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
    await sql`create table orders (id serial primary key, shop int not null, total int not null)`.execute(db);
    await sql`insert into orders (shop, total) select n % 50, n from generate_series(1, 5000) n`.execute(db);
  });
  after(async () => {
    for (const client of clients) await client.end().catch(() => {});
    await db?.destroy();
    await postgres?.stop();
  });

  it('builds an index a migration asked for after its commit, while inserts keep committing', async () => {
    // Inside a migration's transaction the index is recorded, not built.
    await db
      .transaction()
      .execute((trx) =>
        createIndexConcurrently(trx, { name: 'orders_by_shop', table: 'orders', columns: ['shop', 'id'] }),
      );
    assert.deepEqual(await pendingDeferredIndexes(db), ['orders_by_shop']);
    assert.equal(await indexValid('orders_by_shop'), undefined, 'not built yet');

    // A transaction of live traffic, open on the table: a concurrent build waits for it to end.
    const open = await connect();
    await open.query('begin');
    await open.query('insert into orders (shop, total) values (1, 1)');
    const building = buildDeferredIndexes(db);
    await waitFor(
      'the build waiting for the open transaction',
      async () => (await indexValid('orders_by_shop')) === false,
    );

    // Meanwhile other writers are not queued behind the build: each insert commits (a plain
    // `create index` would hold them all until the open transaction ended).
    const writer = await connect();
    await writer.query(`set statement_timeout = '20s'`);
    for (let i = 0; i < 5; i++) {
      await writer.query('begin');
      await writer.query('insert into orders (shop, total) values ($1, $2)', [i, i]);
      await writer.query('commit');
    }
    assert.equal(await indexValid('orders_by_shop'), false, 'the build was still under way while they committed');

    await open.query('commit');
    assert.deepEqual(await building, ['index orders_by_shop']);
    assert.equal(await indexValid('orders_by_shop'), true);
    assert.deepEqual(await pendingDeferredIndexes(db), []);
  });

  it('a lock held by live traffic makes migrate fail with a clear message, and the next migrate builds the index', async () => {
    await db.transaction().execute((trx) =>
      createIndexConcurrently(trx, {
        name: 'orders_by_total',
        table: 'orders',
        columns: ['total'],
        where: 'total > 100',
      }),
    );
    const holder = await connect();
    await holder.query('begin');
    await holder.query('lock table orders in access exclusive mode');
    try {
      const migrate = await cli(['migrate'], { DATABASE_URL: url });
      assert.equal(migrate.code, 1, migrate.stderr);
      assert.equal(
        migrate.stderr.trim(),
        "visualizer migrate: Index orders_by_total not built: could not lock table orders within 5000 ms, because live traffic (a long transaction, say) holds a conflicting lock. Nothing was left half-done: run 'visualizer migrate' again, at a quieter time if it keeps happening.",
      );
      // Until then a process refuses to start, naming what is pending.
      const worker = await cli(['worker'], { DATABASE_URL: url });
      assert.equal(worker.code, 2);
      assert.match(
        worker.stderr,
        /The database needs migrations \(index orders_by_total\)\. Run 'visualizer migrate' first\./,
      );
    } finally {
      await holder.query('rollback');
    }
    const again = await cli(['migrate'], { DATABASE_URL: url });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), 'Applied: index orders_by_total');
    assert.equal(await indexValid('orders_by_total'), true);
  });

  it('other DDL in a migration gives up after its lock timeout with the same kind of message', async () => {
    const holder = await connect();
    await holder.query('begin');
    await holder.query('select * from orders limit 1');
    try {
      await assert.rejects(
        db
          .transaction()
          .execute((trx) =>
            withLockTimeout(trx, 'orders', () => sql`alter table orders add column note text`.execute(trx), 200),
          ),
        /^LockTimeoutError: Schema change failed: could not lock table orders within 200 ms, because live traffic/,
      );
    } finally {
      await holder.query('rollback');
    }
    const columns = await sql<{
      name: string;
    }>`select column_name as name from information_schema.columns where table_name = 'orders'`.execute(db);
    assert.ok(!columns.rows.some((column) => column.name === 'note'), 'nothing changed');
  });
});
