import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, RawBuilder } from 'kysely';
import { sql, SqliteIntrospector } from '../kysely.ts';

/**
 * Indexes built without blocking writes, and DDL that gives up rather than queue behind live
 * traffic. On Postgres `create index` locks the table against writes for the whole build, and a
 * DDL statement waiting for its lock blocks every query queued behind it; both stall a live
 * service. `create index concurrently` cannot run inside a transaction, while kysely's Migrator
 * runs each batch of migrations in one: so inside a migration the index is recorded in
 * `deferred_indexes` (committed with the migration) and built by `migrate` right after the
 * commit (buildDeferredIndexes). A build interrupted by a crash or a lock timeout stays listed
 * there, so `migrate` reports it pending and builds it at its next run.
 */

export interface IndexDefinition {
  name: string;
  table: string;
  columns: string[];
  unique?: boolean;
  /** A partial index's predicate, as SQL (the same text on SQLite and Postgres). */
  where?: string;
}

/** How long DDL waits for a lock held by live traffic before failing with a clear error. */
export const defaultLockTimeoutMs = 5_000;

const isSqlite = (db: Kysely<any>) => db.introspection instanceof SqliteIntrospector;

function indexStatement(index: IndexDefinition, concurrently: boolean): RawBuilder<unknown> {
  const columns = sql.join(index.columns.map((column) => sql.id(column)));
  const where = index.where ? sql` where ${sql.raw(index.where)}` : sql``;
  return sql`create ${sql.raw(index.unique ? 'unique ' : '')}index ${sql.raw(concurrently ? 'concurrently ' : '')}if not exists ${sql.id(index.name)} on ${sql.table(index.table)} (${columns})${where}`;
}

/**
 * Creates an index without blocking writes to its table. On SQLite (one host, a short write
 * lock) a plain `create index if not exists`; on Postgres see the file's comment.
 */
export async function createIndexConcurrently(db: Kysely<any>, index: IndexDefinition): Promise<void> {
  if (isSqlite(db)) return void (await indexStatement(index, false).execute(db));
  if (!db.isTransaction)
    return buildIndex(db, index.name, index.table, indexStatement(index, true).compile(db).sql, defaultLockTimeoutMs);
  await sql`create table if not exists deferred_indexes (name text primary key, table_name text not null, statement text not null, created_at bigint not null)`.execute(
    db,
  );
  await sql`insert into deferred_indexes (name, table_name, statement, created_at) values (${index.name}, ${index.table}, ${indexStatement(index, true).compile(db).sql}, ${Date.now()}) on conflict (name) do nothing`.execute(
    db,
  );
}

/** Postgres' SQLSTATE for a lock not granted within `lock_timeout`. */
const lockNotAvailable = '55P03';

/** DDL that gave up waiting for its lock: the operator's to retry, not a bug (`migrate` prints its message alone). */
export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

const lockTimeoutError = (what: string, table: string, ms: number, cause: unknown) =>
  new LockTimeoutError(
    `${what}: could not lock table ${table} within ${ms} ms, because live traffic (a long transaction, say) holds a conflicting lock. Nothing was left half-done: run 'visualizer migrate' again, at a quieter time if it keeps happening.`,
    { cause },
  );

async function buildIndex(
  db: Kysely<any>,
  name: string,
  table: string,
  statement: string,
  lockTimeoutMs: number,
): Promise<void> {
  await db.connection().execute((connection) => buildIndexOn(connection, name, table, statement, lockTimeoutMs));
}

/** On one connection (outside any transaction): `lock_timeout` is a setting of the session. */
async function buildIndexOn(
  connection: Kysely<any>,
  name: string,
  table: string,
  statement: string,
  lockTimeoutMs: number,
): Promise<void> {
  await sql`select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, false)`.execute(connection);
  try {
    // A build that failed half-way leaves an invalid index that `if not exists` would keep.
    const invalid = await sql<{
      invalid: boolean;
    }>`select not i.indisvalid as invalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`.execute(
      connection,
    );
    if (invalid.rows[0]?.invalid) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(connection);
    await sql.raw(statement).execute(connection);
  } catch (error) {
    if ((error as { code?: unknown }).code === lockNotAvailable)
      throw lockTimeoutError(`Index ${name} not built`, table, lockTimeoutMs, error);
    throw error;
  } finally {
    await sql`reset lock_timeout`.execute(connection);
  }
}

/** Serializes builds of deferred indexes between `migrate` runs (the Migrator's own lock is released by then). */
const buildLockKey = 7_306_116_001;

const hasDeferredIndexes = async (db: Kysely<any>) =>
  (await sql<{ found: string | null }>`select to_regclass('deferred_indexes')::text as found`.execute(db)).rows[0]
    ?.found != null;

/** Names of indexes recorded by migrations and not built yet (Postgres; none on SQLite). */
export async function pendingDeferredIndexes(db: Kysely<any>): Promise<string[]> {
  if (isSqlite(db) || !(await hasDeferredIndexes(db))) return [];
  const { rows } = await sql<{ name: string }>`select name from deferred_indexes order by created_at, name`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * Builds the indexes migrations deferred, one at a time, each `concurrently` outside any
 * transaction; forgets each once built. Returns the names built.
 */
export async function buildDeferredIndexes(
  db: Kysely<any>,
  { lockTimeoutMs = defaultLockTimeoutMs } = {},
): Promise<string[]> {
  if (isSqlite(db) || !(await hasDeferredIndexes(db))) return [];
  return db.connection().execute(async (connection) => {
    // Another migrate building the same index could otherwise find it half-built and drop it.
    // Polled, not waited for: a build `concurrently` waits for every open statement, including
    // one blocked in pg_advisory_lock behind this very build, which would deadlock.
    while (
      !(await sql<{ locked: boolean }>`select pg_try_advisory_lock(${buildLockKey}) as locked`.execute(connection))
        .rows[0]?.locked
    )
      await sleep(100);
    try {
      const { rows } = await sql<{
        name: string;
        table_name: string;
        statement: string;
      }>`select name, table_name, statement from deferred_indexes order by created_at, name`.execute(connection);
      for (const row of rows) {
        await buildIndexOn(connection, row.name, row.table_name, row.statement, lockTimeoutMs);
        await sql`delete from deferred_indexes where name = ${row.name}`.execute(connection);
      }
      return rows.map((row) => `index ${row.name}`);
    } finally {
      await sql`select pg_advisory_unlock(${buildLockKey})`.execute(connection);
    }
  });
}

/**
 * Runs DDL that needs a lock on `table` inside a migration (ALTER TABLE, say) with a lock
 * timeout on Postgres, so it fails with a clear message instead of queueing live traffic behind
 * it. SQLite runs it as is.
 */
export async function withLockTimeout<T>(
  db: Kysely<any>,
  table: string,
  work: () => Promise<T>,
  lockTimeoutMs = defaultLockTimeoutMs,
): Promise<T> {
  if (isSqlite(db)) return work();
  // `set local` lasts until the migration's transaction ends; outside one, until reset below.
  await sql`select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, ${db.isTransaction})`.execute(db);
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown }).code === lockNotAvailable)
      throw lockTimeoutError('Schema change failed', table, lockTimeoutMs, error);
    throw error;
  } finally {
    if (!db.isTransaction) await sql`reset lock_timeout`.execute(db).catch(() => {});
  }
}
