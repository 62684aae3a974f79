/**
 * The Kysely store's library, for a plugin that keeps tables of its own in the store's database
 * (the `db` queue's jobs, dead letters, schedules and processes, whose migrations stay with the
 * store's): the schema's types, prepared statements, the database's clock, and the executor of a
 * connection or transaction, taken from the persistence port's `kysely` capability.
 */
import type { Repositories } from '../../kit/plugin.ts';
import type { Executor } from './database.ts';
import type { Dialect } from './dialect.ts';

export { sql } from './kysely.ts';
export type { Database, Executor } from './database.ts';
export type { Dialect } from './dialect.ts';
export { prepared, preparedInsert } from './prepared.ts';
export { databaseNow } from './database-clock.ts';

/** What the store's `kysely` capability holds: the executor of one connection or transaction, and its dialect. */
export interface KyselyHandle {
  db: Executor;
  dialect: Dialect;
}

/** The Kysely executor of `repositories` (a store or one of its transactions); throws on another store. */
export function kyselyOf(repositories: Repositories): KyselyHandle {
  const handle = repositories.kysely as KyselyHandle | undefined;
  if (!handle) throw new Error('this plugin needs a Kysely store (the sqlite or postgres persistence plugin)');
  return handle;
}
