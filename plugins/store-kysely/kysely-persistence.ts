import { sql, type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { Persistence, Repositories } from '../../core/ports/persistence.ts';
import type { Database, Executor } from './database.ts';
import { migrationProvider } from './migrations/index.ts';
import { apiKeyRepository } from './repositories/api-keys.ts';
import { creditRepository } from './repositories/credits.ts';
import { organizationRepository } from './repositories/organizations.ts';
import { storeRepository } from './repositories/stores.ts';

function repositories(db: Executor): Repositories {
  return {
    organizations: organizationRepository(db),
    stores: storeRepository(db),
    apiKeys: apiKeyRepository(db),
    credits: creditRepository(db),
  };
}

/** The persistence port on any Kysely dialect; the dialect plugins only build the `Kysely` instance. */
export function kyselyPersistence(db: Kysely<Database>, dialect: Persistence['dialect']): Persistence {
  const migrator = () => new Migrator({ db, provider: migrationProvider });
  return {
    dialect,
    ...repositories(db),
    transaction: (work) => db.transaction().execute((tx) => work(repositories(tx))),
    async migrate() {
      // Kysely's Migrator takes a lock (a Postgres advisory lock; SQLite's write lock) around the run.
      const { error, results } = await migrator().migrateToLatest();
      if (error) {
        const failed = results?.find((result) => result.status === 'Error')?.migrationName;
        throw new Error(`Migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`, { cause: error });
      }
      return { applied: (results ?? []).map((result) => result.migrationName) };
    },
    async pendingMigrations() {
      const migrations = await migrator().getMigrations();
      return migrations.filter((migration) => !migration.executedAt).map((migration) => migration.name);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
