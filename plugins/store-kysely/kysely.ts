/**
 * Kysely's values, loaded from its CommonJS build. Its ES module build is some 260 files, and under
 * tsx on Node 20 every ES module import is a round trip to the loader's hooks thread, which made up
 * a sixth of the CPU a process spends starting; `require` loads them in-thread. Import Kysely's
 * values from here (one copy of its classes per process) and its types from 'kysely'.
 */
import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;

export const {
  sql,
  Kysely,
  Migrator,
  CompiledQuery,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  SqliteAdapter,
  SqliteIntrospector,
} = kysely;
// The classes are types as well, as when imported from 'kysely' itself.
export type Kysely<DB> = KyselyModule.Kysely<DB>;
export type Migrator = KyselyModule.Migrator;
export type CompiledQuery<O = unknown> = KyselyModule.CompiledQuery<O>;
export type PostgresDialect = KyselyModule.PostgresDialect;
export type SqliteDialect = KyselyModule.SqliteDialect;
export type SqliteDriver = KyselyModule.SqliteDriver;
export type SqliteAdapter = KyselyModule.SqliteAdapter;
export type SqliteIntrospector = KyselyModule.SqliteIntrospector;
