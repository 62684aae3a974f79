import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { H3 } from 'h3';
import { startWalCheckpointer } from '../../plugins/store-kysely/wal-checkpointer.ts';
import { startBareH3 } from './bare-h3.ts';

/**
 * The second reference of the API benchmarks, beside the floor: bare h3 doing only the database
 * work the measured route must do, the same statements on the same tables, straight on
 * better-sqlite3, and nothing else of ours (no middleware, validation, services or Kysely). Where
 * the floor answers a constant, this shows what a route that reads or writes SQLite can reach on
 * this machine at all: ceiling/floor bounds what any implementation could score against the
 * floor, and ours/ceiling is the cost of everything around the database.
 *
 * It runs on its own copy of the benchmark's database (`VACUUM INTO`, taken once the benchmark's
 * data is in place), opened with the app's settings (WAL, synchronous NORMAL, checkpoints from a
 * worker thread), so the two never share a lock or a cache.
 */
export async function startSameWork(appDatabaseFile: string, routes: (app: H3, db: BetterSqlite3.Database) => void) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-same-work-'));
  const file = path.join(dir, 'copy.db');
  const source = new BetterSqlite3(appDatabaseFile, { readonly: true });
  try {
    source.prepare('vacuum into ?').run(file);
  } finally {
    source.close();
  }
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const checkpointer = startWalCheckpointer(db, file);
  const server = await startBareH3((app) => routes(app, db));
  return {
    url: server.url,
    async close() {
      await server.close();
      await checkpointer.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Transactions asked for in the same event-loop turn share one `BEGIN IMMEDIATE … COMMIT`, each in
 * a savepoint so that one failing leaves the others, and none is answered before the COMMIT: the
 * least a durable, per-request-atomic write with SQLite can cost, as the app's group commit does it.
 */
export function sharedCommits(db: BetterSqlite3.Database) {
  let waiting: Array<{ work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    db.exec('begin immediate');
    try {
      for (const unit of batch) {
        if (batch.length > 1) db.exec('savepoint unit');
        try {
          outcomes.push({ ok: true, value: unit.work() });
          if (batch.length > 1) db.exec('release unit');
        } catch (error) {
          if (batch.length > 1) db.exec('rollback to unit; release unit');
          outcomes.push({ ok: false, value: error });
        }
      }
      db.exec('commit');
    } catch (error) {
      if (db.inTransaction) db.exec('rollback');
      for (const unit of batch) unit.reject(error);
      return;
    }
    batch.forEach((unit, index) => {
      (outcomes[index]!.ok ? unit.resolve : unit.reject)(outcomes[index]!.value);
    });
  };
  return <T>(work: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
}

/** `insert into <table> (<the row's columns>) values (…)` for rows shaped like `row`. */
export function insertLike(db: BetterSqlite3.Database, table: string, row: Record<string, unknown>) {
  const columns = Object.keys(row);
  return db.prepare(
    `insert into ${table} (${columns.join(', ')}) values (${columns.map((column) => `@${column}`).join(', ')})`,
  );
}
