import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * The handle Kysely's SQLite driver is given: better-sqlite3's, with one cache of prepared
 * statements keyed by SQL text. The driver prepares every query afresh, which costs more than
 * running a small one; SQLite re-prepares a cached statement itself after a schema change.
 */
export function cachedStatements(database: BetterSqlite3.Database, size = 500): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        // Bounded, oldest first: each length of an `in` list, for one, is another SQL text.
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
    close: () => database.close(),
  };
}
