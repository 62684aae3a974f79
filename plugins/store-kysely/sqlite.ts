import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { DatabaseConnection } from 'kysely';
import { CompiledQuery, Kysely, SqliteAdapter, SqliteDialect, SqliteDriver } from './kysely.ts';
import type { Logger, Persistence } from '../../kit/plugin.ts';
import type { Database } from './database.ts';
import { groupCommit } from './group-commit.ts';
import { kyselyPersistence } from './kysely-persistence.ts';
import { cachedStatements } from './sqlite-statements.ts';
import { giveLane, sqliteLane } from './direct-sqlite.ts';
import { startWalCheckpointer } from './wal-checkpointer.ts';

/**
 * `BEGIN IMMEDIATE` takes the write lock at the start of a transaction. With the default
 * deferred BEGIN, two processes (serve and a worker) that both read then write would fail with
 * SQLITE_BUSY instead of waiting for each other.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /** Whether Kysely has the connection out (a query or a transaction): the pool's direct lane waits while it has. */
  lent = false;

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.lent = true;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.lent = false;
    await super.releaseConnection();
  }
}

/**
 * Kysely's SQLite adapter assumes a single connection: it runs migrations outside a transaction
 * and takes no lock, so two processes starting on a new file would both create the tables.
 * SQLite does have transactional DDL; with it, the Migrator runs inside BEGIN IMMEDIATE, whose
 * write lock serializes concurrent migrators.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl() {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  /** The driver Kysely made, once it has. */
  driver?: ImmediateSqliteDriver;

  constructor(private readonly options: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(options);
  }
  override createDriver() {
    return (this.driver = new ImmediateSqliteDriver(this.options));
  }
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * SQLite's result codes for a database it cannot use now: locked by another process for longer
 * than the busy timeout, a full disk, an I/O error, a file it cannot open.
 */
const unavailable = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN)/;
const isUnavailable = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && unavailable.test(code);
};

interface SqliteOptions {
  /** How long a write waits for another process's lock before failing as unavailable. */
  busyTimeoutMs?: number;
  logger?: Logger;
}

/**
 * Kysely on one better-sqlite3 connection: its statement cache, the direct lanes of the pool and
 * of each transaction (direct-sqlite.ts), and group commit, since there is one writer: transactions
 * requested together share a commit.
 */
export function sqliteKysely<DB>(database: BetterSqlite3.Database) {
  const statements = cachedStatements(database);
  const dialect = new ImmediateSqliteDialect({ database: statements });
  const db = new Kysely<DB>({ dialect });
  giveLane(
    db,
    sqliteLane(statements, () => !dialect.driver?.lent),
  );
  const transaction = groupCommit(db, { lane: (open) => sqliteLane(statements, open) });
  return { db, transaction };
}

function connect(file: string, { busyTimeoutMs = 10_000, logger }: SqliteOptions): Persistence {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const database = new BetterSqlite3(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // Another process holding the write lock is waited for, not failed on (better-sqlite3 waits
  // synchronously, so this process does nothing else meanwhile).
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  database.pragma('foreign_keys = ON');
  const { db, transaction } = sqliteKysely<Database>(database);
  // Another connection's commit (another process) changes it; this connection's own commits do not.
  const dataVersion = database.prepare('pragma data_version').pluck();
  const persistence = kyselyPersistence(db, 'sqlite', {
    transaction,
    unavailable: isUnavailable,
    changeMarker: () => dataVersion.get(),
  });
  if (file === ':memory:') return persistence;
  const checkpointer = startWalCheckpointer(database, file, { logger });
  return {
    ...persistence,
    async close() {
      await checkpointer.stop();
      await persistence.close();
    },
  };
}

/**
 * One connection per database file per process. better-sqlite3 waits for a lock synchronously,
 * so two connections to one file in one process would block the very thread that has to release
 * the lock. Sharing one connection (whose queries Kysely queues) avoids that; other processes
 * (serve and a worker) are kept apart by SQLite's own locking and the busy timeout.
 */
const open = new Map<string, { persistence: Persistence; users: number }>();

/** The options apply when this call opens the file's connection (the first user in the process). */
export function openSqlite(file: string, options: SqliteOptions = {}): Persistence {
  if (file === ':memory:') return connect(file, options);
  const key = path.resolve(file);
  let entry = open.get(key);
  if (!entry) {
    entry = { persistence: connect(key, options), users: 0 };
    open.set(key, entry);
  }
  entry.users += 1;
  const shared = entry;
  let closed = false;
  return {
    ...shared.persistence,
    async close() {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      open.delete(key);
      await shared.persistence.close();
    },
  };
}
