import type { QueryResult, SqliteDatabase } from 'kysely';

/**
 * Runs one compiled statement at once, or answers `undefined` when it may not run now (the caller
 * then takes Kysely's path, which waits its turn).
 */
export type DirectLane = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

/** By Kysely instance or transaction, whatever its database type. */
const lanes = new WeakMap<object, DirectLane>();

/**
 * better-sqlite3 runs a statement synchronously, so Kysely's way there (a query id, the
 * connection's mutex, three layers of async functions) costs a prepared read more than SQLite
 * running it. An executor given a lane here has its prepared statements (prepared.ts) run straight
 * on the connection instead: the pool's lane runs only while Kysely has lent the connection to
 * no one (no transaction is open on it); a transaction's lane runs while the transaction holds it.
 */
export function giveLane(executor: object, lane: DirectLane) {
  lanes.set(executor, lane);
}

export const laneOf = (executor: object): DirectLane | undefined => lanes.get(executor);

/** A lane on `statements` that runs while `free()` says so; results are shaped as Kysely's SQLite driver shapes them. */
export function sqliteLane(statements: SqliteDatabase, free: () => boolean): DirectLane {
  return (sql, parameters) => {
    if (!free()) return undefined;
    const statement = statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
}
